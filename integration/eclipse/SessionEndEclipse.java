// The session-end scenarios (jdi/SessionEndJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SessionEndEclipse <scenario> <port> <SessionEnd.java path>   (as SessionEndJdi)
public final class SessionEndEclipse {
    // Eclipse's default of 3 s per request is short on a loaded machine.
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(SessionEndJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
