// The session-end scenarios (jdi/SessionEndJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SessionEndEclipse <scenario> <port> <SessionEnd.java path>   (as SessionEndJdi)
public final class SessionEndEclipse {
    public static void main(String[] args) {
        System.exit(SessionEndJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
