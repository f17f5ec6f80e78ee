// The inspection suite (jdi/InspectScenarios.java) through Eclipse's JDI
// implementation (Debian's libeclipse-jdt-debug-java) instead of the JDK's.
//
// Outside OSGi: org.eclipse.jdi.Bootstrap first asks org.eclipse.core.runtime's
// Platform for a "jdiclient" extension; with that bundle absent from the class
// path the NoClassDefFoundError is caught and it falls back to
// org.eclipse.jdi.internal.VirtualMachineManagerImpl, which needs only
// eclipse-osgi.jar (org.eclipse.osgi.util.NLS for its messages). Its request
// timeout preference is read the same way and defaults to 3 s; heap walks may
// take longer on a loaded machine, so it is raised here.
//
// Usage: InspectEclipse <debuggeePort> key=value...   (as InspectScenarios)
public final class InspectEclipse {
    static final int REQUEST_TIMEOUT_MS = 30_000;

    public static void main(String[] args) {
        System.exit(InspectScenarios.run(org.eclipse.jdi.Bootstrap.virtualMachineManager(), "eclipse", args, vm -> {
            if (vm instanceof org.eclipse.jdi.VirtualMachine) {
                ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
            }
        }));
    }
}
