// Suspension through com.sun.jdi, for test_suspension.py: which threads an
// event's suspend policy suspends, per-thread counts, VirtualMachine.suspend /
// resume, a thread started while the VM is suspended, and 8 threads hitting one
// breakpoint (SUSPEND_EVENT_THREAD) 5 times each. Prints "CHECK <name> <value>"
// lines the test compares with its expectations; "RESULT ok" at the end.
// Run by the JDK's JDI (main) and by Eclipse's (eclipse/SuspensionEclipse.java).
//
// Usage: SuspensionJdi <port> <policyLine> <hitLine>
import com.sun.jdi.ClassType;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.Location;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.ThreadDeathEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.ThreadDeathRequest;
import com.sun.jdi.request.ThreadStartRequest;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

public final class SuspensionJdi {
    static final long EVENT_TIMEOUT_MS = 60_000;
    static final int EXPECTED_HITS = 8 * 5;

    VirtualMachine vm;
    EventRequestManager erm;
    ClassType fixture;

    public static void main(String[] args) {
        System.exit(run(com.sun.jdi.Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        SuspensionJdi s = new SuspensionJdi();
        try {
            s.vm = JdiKit.attach(vmm, Integer.parseInt(args[0]));
            configure.accept(s.vm);
            s.erm = s.vm.eventRequestManager();
            s.scenarios(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            try {
                s.vm.dispose();
            } catch (com.sun.jdi.VMDisconnectedException e) {
                // the debuggee may finish first: its last events resumed it
            }
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            return 1;
        }
    }

    ThreadReference awaitLate() throws InterruptedException {
        long deadline = System.nanoTime() + EVENT_TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() < deadline) {
            for (ThreadReference t : vm.allThreads()) {
                // Counted and reported suspended: stock on JDK 25 counts the new thread
                // a moment before its status says so.
                if (t.name().equals("susp-late") && ((t.suspendCount() > 0 && t.isSuspended()) || lateRan())) {
                    return t;
                }
            }
            Thread.sleep(5);  // polls the VM: the thread's start has no event to wait on here
        }
        throw new IllegalStateException("susp-late neither suspended nor run within " + EVENT_TIMEOUT_MS + " ms");
    }

    boolean lateRan() {
        return ((com.sun.jdi.BooleanValue) fixture.getValue(fixture.fieldByName("lateRan"))).value();
    }

    ThreadReference thread(String name) {
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalStateException("no thread " + name);
    }

    static String state(ThreadReference t) {
        return t.isSuspended() + "/" + t.suspendCount();
    }

    void setGate(int value) throws Exception {
        fixture.setValue(fixture.fieldByName("gate"), vm.mirrorOf(value));
    }

    BreakpointRequest breakAt(int line, int policy) throws Exception {
        Location at = fixture.locationsOfLine(line).get(0);
        BreakpointRequest bp = erm.createBreakpointRequest(at);
        bp.setSuspendPolicy(policy);
        bp.enable();
        return bp;
    }

    void scenarios(int policyLine, int hitLine) throws Exception {
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("Suspension");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        EventSet set = JdiKit.awaitSet(vm, e -> e instanceof ClassPrepareEvent, EVENT_TIMEOUT_MS);
        fixture = (ClassType) ((ClassPrepareEvent) set.iterator().next()).referenceType();
        erm.deleteEventRequest(prepare);

        // Suspend policies: which threads the event suspends.
        BreakpointRequest bp = breakAt(policyLine, EventRequest.SUSPEND_NONE);
        set.resume();
        set = JdiKit.awaitSet(vm, e -> e instanceof BreakpointEvent, EVENT_TIMEOUT_MS);
        ThreadReference main = ((BreakpointEvent) set.iterator().next()).thread();
        ThreadReference idle1 = thread("susp-idle-1");
        ThreadReference idle2 = thread("susp-idle-2");
        ThreadReference starter = thread("susp-starter");
        JdiKit.report("policy-none", "main=" + state(main) + " idle=" + state(idle1) + " policy=" + set.suspendPolicy());
        erm.deleteEventRequest(bp);
        bp = breakAt(policyLine, EventRequest.SUSPEND_EVENT_THREAD);
        setGate(1);
        set = JdiKit.awaitSet(vm, e -> e instanceof BreakpointEvent, EVENT_TIMEOUT_MS);
        JdiKit.report("policy-event-thread", "main=" + state(main) + " idle=" + state(idle1) + " policy=" + set.suspendPolicy());
        erm.deleteEventRequest(bp);
        bp = breakAt(policyLine, EventRequest.SUSPEND_ALL);
        set.resume();
        set = JdiKit.awaitSet(vm, e -> e instanceof BreakpointEvent, EVENT_TIMEOUT_MS);
        JdiKit.report("policy-all", "main=" + state(main) + " idle=" + state(idle1) + " starter=" + state(starter)
                + " policy=" + set.suspendPolicy());
        erm.deleteEventRequest(bp);
        set.resume();
        JdiKit.report("after-resume", "main=" + state(main) + " idle=" + state(idle1));

        // Per-thread counts.
        idle1.suspend();
        idle1.suspend();
        JdiKit.report("count-twice", state(idle1));
        idle1.resume();
        JdiKit.report("count-resumed-once", state(idle1));
        idle1.resume();
        JdiKit.report("count-resumed-twice", state(idle1));
        idle1.resume();  // at 0: no effect
        JdiKit.report("count-extra-resume", state(idle1));

        // VirtualMachine.suspend / resume, with a thread also suspended on its own.
        vm.suspend();
        JdiKit.report("vm-suspend", "main=" + state(main) + " idle1=" + state(idle1) + " idle2=" + state(idle2));
        idle1.suspend();
        JdiKit.report("vm-suspend-plus-thread", "idle1=" + state(idle1));
        vm.resume();
        JdiKit.report("vm-resume", "main=" + state(main) + " idle1=" + state(idle1) + " idle2=" + state(idle2));
        idle1.resume();
        JdiKit.report("vm-resume-thread", "idle1=" + state(idle1));

        // A thread started while the VM is suspended starts suspended.
        ThreadStartRequest started = erm.createThreadStartRequest();
        started.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        started.enable();
        ThreadDeathRequest died = erm.createThreadDeathRequest();
        died.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        died.enable();
        vm.suspend();
        starter.resume();
        JdiKit.report("starter-resumed", "starter=" + state(starter) + " main=" + state(main));
        setGate(2);
        // The late thread's ThreadStart event waits for the resume (stock holds it), and
        // the thread is listed before its start is seen: polled until it is counted
        // suspended, or has run (not suspended at its start).
        ThreadReference late = awaitLate();
        JdiKit.report("late-thread", state(late) + " ran=" + lateRan());
        vm.resume();
        JdiKit.awaitSet(vm, e -> e instanceof ThreadDeathEvent && ((ThreadDeathEvent) e).thread().equals(late), EVENT_TIMEOUT_MS);
        JdiKit.report("late-thread-after-resume", "ran=" + lateRan() + " main=" + state(main));
        erm.deleteEventRequest(started);
        erm.deleteEventRequest(died);

        // 8 threads x 5 hits, each event resumed on its own.
        bp = breakAt(hitLine, EventRequest.SUSPEND_EVENT_THREAD);
        setGate(3);
        Set<String> seen = new HashSet<>();
        int total = 0;
        int duplicates = 0;
        int notSuspended = 0;
        while (total < EXPECTED_HITS) {
            set = JdiKit.awaitSet(vm, e -> e instanceof BreakpointEvent, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (!(e instanceof BreakpointEvent)) {
                    continue;
                }
                ThreadReference t = ((BreakpointEvent) e).thread();
                if (!t.isSuspended()) {
                    notSuspended++;
                }
                Value k = t.frame(0).getValue(t.frame(0).visibleVariableByName("k"));
                String key = t.name() + "#" + ((IntegerValue) k).value();
                total++;
                if (!seen.add(key)) {
                    duplicates++;
                }
            }
            if (total >= EXPECTED_HITS) {
                erm.deleteEventRequest(bp);  // while the last hit's thread holds the VM alive
            }
            set.resume();
        }
        JdiKit.report("hits", "total=" + total + " distinct=" + seen.size() + " duplicates=" + duplicates
                + " not-suspended=" + notSuspended);
    }
}
