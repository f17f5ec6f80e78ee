// The suspension scenarios (jdi/SuspensionJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SuspensionEclipse <port> <policyLine> <hitLine>   (as SuspensionJdi)
public final class SuspensionEclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(SuspensionJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
