// The modification and invocation scenarios (jdi/InvokeJdi.java) through
// Eclipse's JDI implementation instead of the JDK's (see InspectEclipse for how
// it runs outside OSGi).
//
// Usage: InvokeEclipse <debuggeePort> <bpLine>
public final class InvokeEclipse {
    public static void main(String[] args) throws Exception {
        System.exit(InvokeJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
