// The stepping table (jdi/SteppingJdi.java) through Eclipse's JDI implementation
// instead of the JDK's; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SteppingEclipse <debuggeePort> <row>...   (as SteppingJdi)
public final class SteppingEclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(SteppingJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
