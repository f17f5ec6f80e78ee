// What every Eclipse wrapper passes to its JDI driver: Eclipse's
// VirtualMachineManager and a configure step that raises its request timeout.
// Eclipse's default of 3 s per request is short for a heap walk, PopFrames or a
// class lookup on a loaded machine.

import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;

final class EclipseKit {
    private EclipseKit() {}

    static final int REQUEST_TIMEOUT_MS = 30_000;

    static VirtualMachineManager manager() {
        return org.eclipse.jdi.Bootstrap.virtualMachineManager();
    }

    static void raiseRequestTimeout(VirtualMachine vm) {
        if (vm instanceof org.eclipse.jdi.VirtualMachine) {
            ((org.eclipse.jdi.VirtualMachine) vm).setRequestTimeout(REQUEST_TIMEOUT_MS);
        }
    }
}
