// Debugger sessions one after another on one running program, for
// test_session_cycles.py and the detach/attach soak: a JDI debugger that
// attaches, works, and disposes, over and over (fixtures/SessionCycles.java,
// server=y,suspend=n). Each session starts with nothing cached from the one
// before (a new VirtualMachine mirror), so an ID the agent kept from an earlier
// session shows up as an error here.
//
// Usage: SessionCyclesJdi <SessionCycles.java path> <mode: basic | soak>
// Reads one port per line on stdin (the agent's latest Listening line; stock
// listens on a new port after each session) and runs one session on it:
//   basic: classesByName, a breakpoint in tick(), wait for its hit,
//          frame(0).visibleVariableByName("n") and its value, allThreads(), dispose();
//   soak:  the same, then a line step over (to the line after), then
//          ClassType.invokeMethod(twice(21)) on the stopped thread, then dispose().
// Prints "CYCLE <n> ok" or "CYCLE <n> fail: <reason>" after each; ends at EOF.
import com.sun.jdi.ClassType;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.StepRequest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;

public final class SessionCyclesJdi {
    static final long EVENT_TIMEOUT_MS = 30_000;

    public static void main(String[] args) throws Exception {
        List<String> source = Files.readAllLines(Paths.get(args[0]));
        boolean soak = args.length > 1 && args[1].equals("soak");
        int bpLine = lineOf(source, "// @bp-tick");
        int stepLine = lineOf(source, "// @step-target");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        for (int cycle = 0; (line = in.readLine()) != null; cycle++) {
            String result;
            try {
                cycle(Integer.parseInt(line.trim()), bpLine, stepLine, soak);
                result = "ok";
            } catch (Throwable t) {
                result = "fail: " + t;
            }
            System.out.println("CYCLE " + cycle + " " + result);
            System.out.flush();
        }
    }

    static int lineOf(List<String> source, String marker) {
        for (int i = 0; i < source.size(); i++) {
            if (source.get(i).contains(marker)) return i + 1;
        }
        throw new IllegalStateException("no marker " + marker);
    }

    static void cycle(int port, int bpLine, int stepLine, boolean soak) throws Exception {
        VirtualMachine vm = JdiKit.attach(com.sun.jdi.Bootstrap.virtualMachineManager(), port);
        try {
            List<ReferenceType> types = vm.classesByName("SessionCycles");
            if (types.size() != 1) throw new AssertionError("classesByName: " + types);
            ClassType fixture = (ClassType) types.get(0);
            Location at = fixture.locationsOfLine(bpLine).get(0);
            BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at);
            bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            bp.enable();
            BreakpointEvent hit = JdiKit.await(vm, BreakpointEvent.class, EVENT_TIMEOUT_MS);
            ThreadReference thread = hit.thread();
            StackFrame frame = thread.frame(0);
            LocalVariable n = frame.visibleVariableByName("n");
            if (n == null) throw new AssertionError("no visible variable n");
            Value value = frame.getValue(n);
            if (!(value instanceof IntegerValue)) throw new AssertionError("n = " + value);
            if (!frame.location().method().name().equals("tick")) throw new AssertionError("frame in " + frame.location());
            if (vm.allThreads().stream().noneMatch(t -> t.name().equals("main"))) throw new AssertionError("no main thread");
            if (soak) {
                vm.eventRequestManager().deleteEventRequest(bp);
                StepRequest step = vm.eventRequestManager().createStepRequest(thread, StepRequest.STEP_LINE,
                                                                               StepRequest.STEP_OVER);
                step.addCountFilter(1);
                step.enable();
                thread.resume();
                StepEvent stepped = JdiKit.await(vm, StepEvent.class, EVENT_TIMEOUT_MS);
                if (stepped.location().lineNumber() != stepLine) throw new AssertionError("step ended at " + stepped.location());
                Method twice = fixture.methodsByName("twice").get(0);
                Value r = fixture.invokeMethod(stepped.thread(), twice, List.of(vm.mirrorOf(21)), 0);
                if (!(r instanceof IntegerValue) || ((IntegerValue) r).value() != 42) throw new AssertionError("twice(21) = " + r);
            }
        } finally {
            vm.dispose();
        }
    }

}
