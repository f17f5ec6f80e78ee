// HotSwap (jdi/RedefineJdi.java) through
// Eclipse's JDI implementation instead of the JDK's (see InspectEclipse.java).
public final class RedefineEclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(RedefineJdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
