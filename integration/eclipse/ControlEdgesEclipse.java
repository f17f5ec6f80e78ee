// The control-edge scenarios (jdi/ControlEdgesJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: ControlEdgesEclipse <scenario> <debuggeePort> <ControlEdges.java path> [control port]
//   (as ControlEdgesJdi)
public final class ControlEdgesEclipse {
    // Eclipse's default of 3 s per request is short for PopFrames or a class
    // lookup on a loaded machine.
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(ControlEdgesJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
