// Session end through com.sun.jdi, for test_session_end.py: puts a running
// SessionEnd debuggee (fixtures/SessionEnd.java, server=y,suspend=n) in some
// state and ends the session the way a JDI debugger does, by
// VirtualMachine.dispose() or by going away without a word (the process halts,
// so the OS closes the connection). The test then checks through its raw client
// that the program runs on and a second debugger finds a clean VM.
// Run by the JDK's JDI (main) and by Eclipse's (eclipse/SessionEndEclipse.java).
//
// Usage: SessionEndJdi <scenario> <port> <SessionEnd.java path> [client: jdk | eclipse]
//   bp-dispose, bp-disconnect: stopped at a SUSPEND_ALL breakpoint in tick();
//   nested-dispose: worker suspended 3 times, the VM twice;
//   nested-event-disconnect: stopped at the breakpoint, main and the VM suspended once more;
//   step-dispose: stopped by a LINE/OVER step, its request still set;
//   step-pending-disconnect: stopped at the breakpoint with a step request never resumed into;
//   in-flight-dispose: SUSPEND_ALL breakpoints in tick() and work(), no event read;
//   invoke-dispose: stopped at the breakpoint, slow(1000) invoked on main, dispose
//     once the invocation has entered slow (a SUSPEND_NONE MethodEntry event);
//   spin-dispose: a SUSPEND_NONE breakpoint in spin() (nearly always in its
//     callback), VirtualMachine.suspend, dispose;
//   vm-death: the debuggee (suspend=y, a few ticks) is resumed and runs
//     to its end; VMDeath must come before the connection closes (VMDisconnect).
//     Eclipse's JDI may lose it (see vmDeath): with client "eclipse" a lone
//     VMDisconnect is reported as a SKIP line instead of failing;
//   vm-death-requested: the same with a SUSPEND_ALL VMDeathRequest: its VMDeath
//     comes in a set with that policy.
// Output: CHECK/DETAIL lines, then RESULT ok | RESULT fail: <reason>; a
// disconnect scenario prints RESULT ok and halts with status 0.
import com.sun.jdi.ClassType;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.StepRequest;
import com.sun.jdi.request.VMDeathRequest;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

public final class SessionEndJdi {
    static final long EVENT_TIMEOUT_MS = 30_000;
    static final int SLOW_MILLIS = 1000;

    VirtualMachine vm;
    EventRequestManager erm;
    ClassType fixture;
    List<String> source;
    String client; // jdk | eclipse: whose JDI this is

    public static void main(String[] args) {
        System.exit(run(com.sun.jdi.Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        SessionEndJdi s = new SessionEndJdi();
        String scenario = args[0];
        try {
            s.source = Files.readAllLines(Paths.get(args[2]));
            s.vm = JdiKit.attach(vmm, Integer.parseInt(args[1]));
            configure.accept(s.vm);
            s.erm = s.vm.eventRequestManager();
            s.client = args.length > 3 ? args[3] : "jdk";
            boolean dispose = s.scenario(scenario);
            System.out.println("RESULT ok");
            System.out.flush();
            if (!dispose) {
                // Gone without Dispose: the OS closes the connection.
                Runtime.getRuntime().halt(0);
            }
            try {
                s.vm.dispose();
            } catch (com.sun.jdi.VMDisconnectedException e) {
                // already disposed (invoke-dispose) or gone (vm-death)
            }
            return 0;
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            return 1;
        }
    }

    static void detail(String text) {
        System.out.println("DETAIL " + text);
    }

    // Runs the scenario up to the session's end; true: end it with dispose().
    boolean scenario(String name) throws Exception {
        switch (name) {
            case "bp-dispose": {
                ThreadReference main = stopAtBreakpoint();
                JdiKit.check(main.suspendCount() == 1, "main's count at the breakpoint " + main.suspendCount());
                return true;
            }
            case "bp-disconnect":
                stopAtBreakpoint();
                return false;
            case "nested-dispose": {
                fixture = loadedFixture();
                ThreadReference worker = thread("worker");
                for (int i = 0; i < 3; i++) worker.suspend();
                for (int i = 0; i < 2; i++) vm.suspend();
                JdiKit.check(worker.suspendCount() == 5, "worker's count " + worker.suspendCount());
                JdiKit.check(thread("main").suspendCount() == 2, "main's count " + thread("main").suspendCount());
                return true;
            }
            case "nested-event-disconnect": {
                ThreadReference main = stopAtBreakpoint();
                main.suspend();
                vm.suspend();
                JdiKit.check(main.suspendCount() == 3, "main's count " + main.suspendCount());
                return false;
            }
            case "step-dispose": {
                ThreadReference main = stopAtBreakpoint();
                erm.deleteAllBreakpoints();
                StepRequest step = erm.createStepRequest(main, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
                step.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                step.enable();
                vm.resume();
                EventSet set = JdiKit.awaitSet(vm, e -> e instanceof StepEvent, EVENT_TIMEOUT_MS);
                JdiKit.check(set.suspendPolicy() == EventRequest.SUSPEND_ALL, "step's policy " + set.suspendPolicy());
                JdiKit.check(main.suspendCount() == 1, "main's count at the step " + main.suspendCount());
                return true; // stopped by the step, its request still set
            }
            case "step-pending-disconnect": {
                ThreadReference main = stopAtBreakpoint();
                erm.createStepRequest(main, StepRequest.STEP_LINE, StepRequest.STEP_OVER).enable();
                return false;
            }
            case "in-flight-dispose":
                fixture = loadedFixture();
                breakpoint("// @bp-tick", EventRequest.SUSPEND_ALL);
                breakpoint("// @bp-work", EventRequest.SUSPEND_ALL);
                return true;
            case "invoke-dispose":
                invokeThenDispose();
                return true;
            case "spin-dispose":
                fixture = loadedFixture();
                breakpoint("// @bp-spin", EventRequest.SUSPEND_NONE);
                vm.suspend();
                return true;
            case "vm-death":
                vmDeath(false);
                return true;
            case "vm-death-requested":
                vmDeath(true);
                return true;
            default:
                throw new IllegalArgumentException(name);
        }
    }

    ClassType loadedFixture() {
        List<com.sun.jdi.ReferenceType> found = vm.classesByName("SessionEnd");
        JdiKit.check(found.size() == 1, "SessionEnd loaded " + found.size() + " times");
        return (ClassType) found.get(0);
    }

    ThreadReference thread(String name) {
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals(name)) return t;
        }
        throw new IllegalStateException("no thread " + name);
    }

    int line(String marker) {
        int found = -1;
        for (int i = 0; i < source.size(); i++) {
            if (source.get(i).contains(marker)) {
                JdiKit.check(found < 0, marker + " twice in the fixture");
                found = i + 1;
            }
        }
        JdiKit.check(found > 0, "no " + marker + " in the fixture");
        return found;
    }

    BreakpointRequest breakpoint(String marker, int policy) throws Exception {
        List<Location> at = fixture.locationsOfLine(line(marker));
        JdiKit.check(!at.isEmpty(), "no code at " + marker);
        BreakpointRequest bp = erm.createBreakpointRequest(at.get(0));
        bp.setSuspendPolicy(policy);
        bp.enable();
        return bp;
    }

    // main stopped at a SUSPEND_ALL breakpoint in tick(); returns main.
    ThreadReference stopAtBreakpoint() throws Exception {
        fixture = loadedFixture();
        BreakpointRequest bp = breakpoint("// @bp-tick", EventRequest.SUSPEND_ALL);
        EventSet set = JdiKit.awaitSet(vm, e -> e instanceof BreakpointEvent, EVENT_TIMEOUT_MS);
        JdiKit.check(set.suspendPolicy() == EventRequest.SUSPEND_ALL, "breakpoint's policy " + set.suspendPolicy());
        BreakpointEvent hit = (BreakpointEvent) set.iterator().next();
        JdiKit.check(hit.request().equals(bp), "a breakpoint event of another request");
        JdiKit.check(hit.thread().name().equals("main"), "breakpoint hit by " + hit.thread().name());
        return hit.thread();
    }

    void invokeThenDispose() throws Exception {
        ThreadReference main = stopAtBreakpoint();
        Method slow = fixture.methodsByName("slow").get(0);
        MethodEntryRequest entry = erm.createMethodEntryRequest();
        entry.addClassFilter("SessionEnd");
        entry.addThreadFilter(main);
        entry.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        entry.enable();
        // JDI's invokeMethod blocks until the reply: it runs on a thread of its
        // own while this one waits for the invocation to be under way.
        AtomicReference<String> outcome = new AtomicReference<>("pending");
        Thread invoker = new Thread(() -> {
            try {
                Value v = fixture.invokeMethod(main, slow, List.of(vm.mirrorOf(SLOW_MILLIS)), 0);
                outcome.set("returned " + ((IntegerValue) v).value());
            } catch (Throwable t) {
                outcome.set("ended by " + t.getClass().getSimpleName());
            }
        }, "invoker");
        invoker.setDaemon(true);
        invoker.start();
        MethodEntryEvent entered = (MethodEntryEvent) JdiKit.awaitSet(vm,
                e -> e instanceof MethodEntryEvent && ((MethodEntryEvent) e).method().equals(slow), EVENT_TIMEOUT_MS)
                .iterator().next();
        JdiKit.check(entered.thread().equals(main), "slow entered by " + entered.thread().name());
        vm.dispose();
        // The invocation's reply may or may not come before the connection closes.
        invoker.join(EVENT_TIMEOUT_MS);
        detail("invocation " + outcome.get());
        JdiKit.check(!invoker.isAlive(), "invokeMethod still waiting after dispose");
    }

    void waitForVmStart() throws InterruptedException {
        while (true) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set)
                if (e instanceof VMStartEvent) return;
        }
    }

    void vmDeath(boolean requested) throws Exception {
        VMDeathRequest request = null;
        if (requested) {
            request = erm.createVMDeathRequest();
            request.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            request.enable();
        }
        // VMStart first: stock suspends the VM for it in its event thread, so a
        // resume sent before that set arrives may come first and be lost (stock,
        // JDK 25: once in a CI run, then no event for 30 s).
        waitForVmStart();
        vm.resume();
        List<String> kinds = new ArrayList<>();
        boolean requestedSeen = false;
        while (true) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS, " (waiting for VMDisconnect); events " + kinds);
            boolean disconnected = false;
            for (Event e : set) {
                if (e instanceof VMStartEvent) continue;
                String kind = e instanceof VMDeathEvent ? "VMDeath" : e instanceof VMDisconnectEvent ? "VMDisconnect" : e.toString();
                // Requested and automatic VMDeath come in one set: listed once.
                if (kinds.isEmpty() || !kinds.get(kinds.size() - 1).equals(kind)) kinds.add(kind);
                if (request != null && request.equals(e.request())) {
                    // As stock: the set has the request's policy, and the dying VM
                    // waits for this set's resume.
                    JdiKit.check(set.suspendPolicy() == EventRequest.SUSPEND_ALL, "requested VMDeath's policy " + set.suspendPolicy());
                    requestedSeen = true;
                }
                disconnected |= e instanceof VMDisconnectEvent;
            }
            if (disconnected) break;
            // The VMStart set was resumed by vm.resume() above; resuming it again
            // would undo a later suspension.
            if (set.iterator().next() instanceof VMStartEvent) continue;
            try {
                set.resume();
            } catch (com.sun.jdi.VMDisconnectedException e) {
                // the VM died meanwhile: its VMDisconnect comes next
            }
        }
        detail("events " + kinds);
        if (client.equals("eclipse") && kinds.equals(List.of("VMDisconnect"))) {
            // Eclipse's PacketReceiveManager.getCommand gives up as soon as the
            // connection is closed, even with an event packet already queued: a
            // VMDeath the agent sent just before closing is lost now and then
            // (seen with stock as with ours).
            System.out.println("SKIP vm-death: client limitation: Eclipse's JDI dropped the VMDeath queued before the close");
            return;
        }
        JdiKit.check(kinds.equals(List.of("VMDeath", "VMDisconnect")), "events " + kinds + ", expected VMDeath, VMDisconnect");
        JdiKit.check(!requested || requestedSeen, "no VMDeath event of the SUSPEND_ALL request");
    }
}
