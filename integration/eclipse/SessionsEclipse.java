// One debugger among several on the same JVM (jdi/SessionsJdi.java) through
// Eclipse's JDI implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SessionsEclipse <port> <tickLine> <tickNextLine> <tockLine>   (as SessionsJdi)
public final class SessionsEclipse {
    public static void main(String[] args) {
        System.exit(SessionsJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
