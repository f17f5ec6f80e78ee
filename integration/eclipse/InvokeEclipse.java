// The modification and invocation scenarios (jdi/InvokeJdi.java) through
// Eclipse's JDI implementation instead of the JDK's (see InspectEclipse for how
// it runs outside OSGi).
//
// Usage: InvokeEclipse <debuggeePort> <bpLine>
public final class InvokeEclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) throws Exception {
        System.exit(InvokeJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
