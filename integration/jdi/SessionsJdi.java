// One IDE-like debugger among several on the same JVM (issue 31, sessions=N), for
// test_sessions_clients.py: attaches to a running Sessions debuggee
// (fixtures/Sessions.java, server=y,suspend=n), stops thread "worker" at a
// SUSPEND_EVENT_THREAD breakpoint in tick(), looks at "other" (which jdb may be
// holding at its own breakpoint in tock()), steps over one line, reads the
// locals there, then deletes its requests, resumes and disposes. The same run
// alone against the JDK's agent is the oracle for the values a session sees.
// Run by the JDK's JDI (main) and by Eclipse's (eclipse/SessionsEclipse.java).
//
// Usage: SessionsJdi <port> <tickLine> <tickNextLine> <tockLine>
// Output: "ARMED" once the breakpoint is set (a test may hold the worker until
// then), CHECK lines, then RESULT ok | RESULT fail: <reason>.
//   thread               the breakpoint event's thread
//   bp-line              the breakpoint event's line
//   suspended            isSuspended/suspendCount of the event thread at the hit
//                        (the count is this session's own)
//   other                isSuspended/suspendCount of thread "other"
//   other-frame          tock:<line> of other's top frame when it is suspended
//                        (by anyone), else "running"
//   step-line, step-method  where the step over ended
//   step-suspended       isSuspended/suspendCount of the event thread after the step
//   local-i, local-doubled  the locals at the step's end
//   doubled-is-twice-i   doubled == 2 * i
//   after-resume-count   this session's suspendCount of the thread once resumed
import com.sun.jdi.ClassType;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

public final class SessionsJdi {
    static final long EVENT_TIMEOUT_MS = 60_000;

    public static void main(String[] args) {
        System.exit(run(com.sun.jdi.Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        try {
            VirtualMachine vm = JdiKit.attach(vmm, Integer.parseInt(args[0]));
            configure.accept(vm);
            session(vm, Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            vm.dispose();
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            return 1;
        }
    }

    static void session(VirtualMachine vm, int tickLine, int tickNextLine, int tockLine) throws Exception {
        EventRequestManager erm = vm.eventRequestManager();
        List<ReferenceType> types = vm.classesByName("Sessions");
        JdiKit.expect("classes named Sessions", 1, types.size());
        ClassType fixture = (ClassType) types.get(0);
        Method tick = fixture.methodsByName("tick").get(0);
        List<Location> at = tick.locationsOfLine(tickLine);
        JdiKit.check(!at.isEmpty(), "no location of line " + tickLine + " in tick");

        BreakpointRequest bp = erm.createBreakpointRequest(at.get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
        System.out.println("ARMED");
        System.out.flush();

        EventSet hitSet = ownSet(vm, bp);
        JdiKit.expect("suspend policy of the breakpoint's set", EventRequest.SUSPEND_EVENT_THREAD, hitSet.suspendPolicy());
        BreakpointEvent hit = (BreakpointEvent) hitSet.iterator().next();
        ThreadReference thread = hit.thread();
        JdiKit.report("thread", thread.name());
        JdiKit.report("bp-line", hit.location().lineNumber());
        JdiKit.report("suspended", state(thread));

        ThreadReference other = threadNamed(vm, "other");
        JdiKit.report("other", state(other));
        if (other.isSuspended()) {
            Location top = other.frame(0).location();
            JdiKit.report("other-frame", top.method().name() + ":" + top.lineNumber());
        } else {
            JdiKit.report("other-frame", "running");
        }

        StepRequest step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        step.enable();
        hitSet.resume();
        EventSet stepSet = ownSet(vm, step);
        StepEvent stepped = (StepEvent) stepSet.iterator().next();
        JdiKit.expect("the step's thread", thread, stepped.thread());
        JdiKit.report("step-line", stepped.location().lineNumber());
        JdiKit.report("step-method", stepped.location().method().name());
        JdiKit.report("step-suspended", state(thread));

        StackFrame frame = thread.frame(0);
        int i = ((IntegerValue) frame.getValue(frame.visibleVariableByName("i"))).value();
        int doubled = ((IntegerValue) frame.getValue(frame.visibleVariableByName("doubled"))).value();
        JdiKit.report("local-i", i);
        JdiKit.report("local-doubled", doubled);
        JdiKit.report("doubled-is-twice-i", doubled == 2 * i);

        // The requests go before the resume: no later hit of this session's
        // breakpoint stops the worker again before the dispose.
        // Copies: Eclipse's deleteEventRequests walks the list it is given while it
        // removes from the manager's own.
        erm.deleteEventRequests(new ArrayList<>(erm.breakpointRequests()));
        erm.deleteEventRequests(new ArrayList<>(erm.stepRequests()));
        JdiKit.expect("requests left", 0, erm.breakpointRequests().size() + erm.stepRequests().size());
        stepSet.resume();
        JdiKit.report("after-resume-count", thread.suspendCount());
    }

    /**
     * The next event set, which must hold events of {@code request} only: an event of
     * another debugger's request, or any other event, fails.
     */
    static EventSet ownSet(VirtualMachine vm, EventRequest request) throws InterruptedException {
        EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
        for (Event e : set) {
            if (e.request() != request) {
                throw new AssertionError("an event of a request this session did not make, or of none: " + e
                        + " (request " + e.request() + "), awaiting one of " + request);
            }
        }
        JdiKit.expect("events in the set of " + request, 1, set.size());
        return set;
    }

    static String state(ThreadReference t) {
        return t.isSuspended() + "/" + t.suspendCount();
    }

    static ThreadReference threadNamed(VirtualMachine vm, String name) {
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no thread named " + name);
    }
}
