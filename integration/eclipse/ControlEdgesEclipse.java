// The control-edge scenarios (jdi/ControlEdgesJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: ControlEdgesEclipse <scenario> <debuggeePort> <ControlEdges.java path> [control port]
//   (as ControlEdgesJdi)
public final class ControlEdgesEclipse {
    public static void main(String[] args) {
        System.exit(ControlEdgesJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
