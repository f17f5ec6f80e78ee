// The inspection suite (jdi/InspectScenarios.java) through Eclipse's JDI
// implementation (Debian's libeclipse-jdt-debug-java) instead of the JDK's.
//
// Outside OSGi: org.eclipse.jdi.Bootstrap first asks org.eclipse.core.runtime's
// Platform for a "jdiclient" extension; with that bundle absent from the class
// path the NoClassDefFoundError is caught and it falls back to
// org.eclipse.jdi.internal.VirtualMachineManagerImpl, which needs only
// eclipse-osgi.jar (org.eclipse.osgi.util.NLS for its messages). Its request
// timeout preference is read the same way and defaults to 3 s; heap walks may
// take longer on a loaded machine, so EclipseKit raises it.
//
// Usage: InspectEclipse <debuggeePort> key=value...   (as InspectScenarios)
public final class InspectEclipse {
    public static void main(String[] args) {
        System.exit(InspectScenarios.run(EclipseKit.manager(), "eclipse", args, EclipseKit::raiseRequestTimeout));
    }
}
