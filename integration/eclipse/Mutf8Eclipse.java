// The string scenarios (jdi/Mutf8Jdi.java) through Eclipse's JDI, which speaks
// modified UTF-8; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: Mutf8Eclipse <debuggeePort> <agent encoding: standard|modified>
public final class Mutf8Eclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(Mutf8Jdi.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), "modified", args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
