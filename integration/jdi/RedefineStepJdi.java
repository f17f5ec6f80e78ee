// Locations in the old version of a redefined method, through com.sun.jdi
// (test_redefine.py). Drives fixtures/RedefineStep (server=y, suspend=n):
//  A. stopped at @work-first, the class is redefined (work's body changed):
//     the frame is in an obsolete method (the location's method ID is 0, as
//     stock sends it), main's frame is not; a line step from there ends in the
//     old code, reported in the obsolete method.
//  B. a step over block() is in progress (the thread spins in block) while the
//     class is redefined again; the step still ends, in the obsolete method.
//  C. stopped at @work-block with a step over pending, the class is redefined
//     before the thread resumes: the step goes on in the old code (now obsolete)
//     and ends where the line changes, not at the next instruction.
// Prints "CHECK <name> <value>" lines that test_redefine.py compares.
//
// Usage: RedefineStepJdi <port> <variant1.class> <variant2.class> <firstLine> <blockLine>
import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

public final class RedefineStepJdi {
    static VirtualMachine vm;

    public static void main(String[] args) throws Exception {
        vm = JdiKit.attach(Bootstrap.virtualMachineManager(), Integer.parseInt(args[0]));
        byte[] variant1 = Files.readAllBytes(Path.of(args[1]));
        byte[] variant2 = Files.readAllBytes(Path.of(args[2]));
        int firstLine = Integer.parseInt(args[3]);
        int blockLine = Integer.parseInt(args[4]);
        EventRequestManager erm = vm.eventRequestManager();
        ClassType fixture = (ClassType) vm.classesByName("RedefineStep").get(0);

        // A: stopped in work, then redefined.
        BreakpointRequest bp = erm.createBreakpointRequest(fixture.locationsOfLine(firstLine).get(0));
        bp.enable();
        fixture.setValue(fixture.fieldByName("go"), vm.mirrorOf(true));
        ThreadReference thread = JdiKit.await(vm, BreakpointEvent.class, 60_000).thread();
        bp.disable();
        erm.deleteEventRequest(bp);
        JdiKit.report("a-before", describe(thread.frame(0).location()));
        vm.redefineClasses(Map.of(fixture, variant1));
        JdiKit.report("a-frame0", describe(thread.frame(0).location()));
        JdiKit.report("a-frame1", describe(thread.frame(1).location()));
        StepRequest step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.enable();
        vm.resume();
        JdiKit.report("a-step", describe(JdiKit.await(vm, StepEvent.class, 60_000).location()));
        erm.deleteEventRequest(step);
        fixture.setValue(fixture.fieldByName("releases"), vm.mirrorOf(1));

        // B: a step over block() in progress while the class is redefined again.
        bp = erm.createBreakpointRequest(fixture.locationsOfLine(blockLine).get(0));
        bp.enable();
        vm.resume();
        thread = JdiKit.await(vm, BreakpointEvent.class, 60_000).thread();
        erm.deleteEventRequest(bp);
        JdiKit.report("b-before", describe(thread.frame(0).location()));
        step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.enable();
        // Redefine only once the thread is inside block(2), running: a breakpoint at
        // block's first statement that suspends nothing says so.
        BreakpointRequest entry = erm.createBreakpointRequest(
            fixture.methodsByName("block").get(0).location());
        entry.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        entry.enable();
        vm.resume();
        JdiKit.await(vm, BreakpointEvent.class, 60_000);
        erm.deleteEventRequest(entry);
        vm.redefineClasses(Map.of(fixture, variant2));
        fixture.setValue(fixture.fieldByName("releases"), vm.mirrorOf(2));
        StepEvent stepped = JdiKit.await(vm, StepEvent.class, 60_000);
        JdiKit.report("b-step", describe(stepped.location()));
        JdiKit.report("b-step-frame1", describe(stepped.thread().frame(1).location()));
        erm.deleteEventRequest(step);

        // C: a step over pending at @work-block, redefined before the thread runs.
        bp = erm.createBreakpointRequest(fixture.locationsOfLine(blockLine).get(0));
        bp.enable();
        vm.resume();
        thread = JdiKit.await(vm, BreakpointEvent.class, 60_000).thread();
        erm.deleteEventRequest(bp);
        JdiKit.report("c-before", describe(thread.frame(0).location()));
        step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.enable();
        vm.redefineClasses(Map.of(fixture, variant1));
        fixture.setValue(fixture.fieldByName("releases"), vm.mirrorOf(3));
        vm.resume();
        JdiKit.report("c-step", describe(JdiKit.await(vm, StepEvent.class, 60_000).location()));
        erm.deleteEventRequest(step);
        vm.resume();
        vm.eventQueue().remove(60_000);  // VMDeath / disconnect as the program ends
        System.out.println("RESULT ok");
    }

    static String describe(Location l) {
        Method m = l.method();
        return m.isObsolete() ? "obsolete-in-" + l.declaringType().name() + "@" + l.codeIndex()
                            : m.name() + ":" + l.lineNumber();
    }

}
