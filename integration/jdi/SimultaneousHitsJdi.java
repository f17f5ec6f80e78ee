// Several threads at one SUSPEND_ALL breakpoint at the same moment, through
// com.sun.jdi, for test_simultaneous_hits.py (fixtures/SimultaneousHits.java).
//
// The driver keeps a model of every application thread's suspend count (main and
// the workers): a SUSPEND_ALL set adds 1 to each, a SUSPEND_EVENT_THREAD set 1 to
// its thread, VirtualMachine.resume takes 1 from each count above 0,
// ThreadReference.resume 1 from its thread. Both agents apply an event's
// suspension before they send it, in the order they send the events, so a count
// read while handling set k is the model's plus the suspensions of sets after k
// already applied: never below the model, never above it plus what the later
// sets add to that thread. Where every set is answered by VirtualMachine.resume
// (all, virtual, dispose) nothing is applied while the driver reads (the agents
// send no event after a SUSPEND_ALL one until a resume): the counts equal the model.
// At each breakpoint set it also checks: one event per set, the event thread's
// top frame is the breakpoint's location, its locals (worker, round) name a hit
// not seen before, and a thread counted suspended is reported suspended.
//
// Scenarios:
//   all      every set is answered by VirtualMachine.resume
//   mix      even workers hit the SUSPEND_ALL line, odd ones a SUSPEND_EVENT_THREAD one
//            (answered by resuming their thread); every 4th SUSPEND_ALL set resumes only
//            its event thread, which must then reach the next line (a breakpoint
//            filtered on it) while the others stay suspended; that set ends with
//            VirtualMachine.resume; and now and then a SUSPEND_EVENT_THREAD set is met by
//            VirtualMachine.suspend, a look at the counts, VirtualMachine.resume
//   virtual  as all, with virtual threads (also those not listed by allThreads)
//   dispose  as all for DISPOSE_AT sets; then resumes every stopped worker on its own
//            (they race into the breakpoint again) and disposes at once
//   second   a later debugger: every count is 0; a breakpoint in tick() (main) hits
//            once; sets `released` and resumes; the VM ends
// Prints "CHECK <name> <value>" lines the test compares, "DETAIL ..." lines it
// only shows, "MISMATCH ..." lines (the first few of each kind), "RESULT ok".
//
// Usage: SimultaneousHitsJdi <scenario> <port> <allLine> <afterLine> <oneLine> <tickLine> <workers> <rounds>
import com.sun.jdi.ClassType;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

public final class SimultaneousHitsJdi {
    static final long EVENT_TIMEOUT_MS = 30_000;
    static final int DISPOSE_AT = 6;  // the set at which `dispose` ends the session
    static final int MISMATCHES_SHOWN = 10;

    final String scenario;
    final int allLine, afterLine, oneLine, tickLine, workers, rounds;
    VirtualMachine vm;
    EventRequestManager erm;
    ClassType fixture;
    BreakpointRequest bpAll, bpOne, bpAfter;
    ThreadReference awaitingAfter;  // resumed on its own, on its way to bpAfter

    final Map<ThreadReference, Integer> model = new HashMap<>();
    final Map<ThreadReference, String> names = new HashMap<>();
    final Set<ThreadReference> seenVirtual = new HashSet<>();  // event threads allThreads may not list
    final Set<Integer> hitKeys = new HashSet<>();
    final Map<String, Integer> hitsPerThread = new TreeMap<>();
    final Map<String, Integer> mismatches = new LinkedHashMap<>();
    int sets, hits, duplicates, multiEventSets, allSets, eventThreadSets, afterHits, aloneResumes;
    // (set, thread index, count above the model) for checkObservations; what each set added.
    final List<int[]> observations = new ArrayList<>();
    final List<ThreadReference> indexed = new ArrayList<>();
    final List<Object> adds = new ArrayList<>();
    static final Object ALL = new Object();
    int aheadOfModel;  // counts read above the model, explained by later sets
    int stacksRead, vmSuspends, oneSets;
    int endedDuringStop;  // threads that ended while the driver read the stacks
    int virtualRefused;   // virtual threads whose frames were refused at a stop (see checkStacks)
    int systemNotSuspended, systemChecked, carriersNotSuspended, carriersChecked;
    final Map<ThreadReference, Boolean> carriers = new HashMap<>();
    boolean sawDeath;

    SimultaneousHitsJdi(String[] a) {
        scenario = a[0];
        allLine = Integer.parseInt(a[2]);
        afterLine = Integer.parseInt(a[3]);
        oneLine = Integer.parseInt(a[4]);
        tickLine = Integer.parseInt(a[5]);
        workers = Integer.parseInt(a[6]);
        rounds = Integer.parseInt(a[7]);
    }

    public static void main(String[] args) {
        if (args.length != 8) {
            System.err.println("usage: SimultaneousHitsJdi <scenario> <port> <allLine> <afterLine> <oneLine> <tickLine> <workers> <rounds>");
            System.exit(2);
        }
        SimultaneousHitsJdi d = new SimultaneousHitsJdi(args);
        try {
            d.vm = JdiKit.attach(com.sun.jdi.Bootstrap.virtualMachineManager(), Integer.parseInt(args[1]));
            d.erm = d.vm.eventRequestManager();
            if (d.scenario.equals("second")) {
                d.second();
            } else {
                d.hits();
            }
            System.out.println("RESULT ok");
            System.exit(0);
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    void mismatch(String kind, String what) {
        int n = mismatches.merge(kind, 1, Integer::sum);
        if (n <= MISMATCHES_SHOWN) System.out.println("MISMATCH " + kind + " (set " + sets + "): " + what);
    }

    EventSet next() throws InterruptedException {
        return JdiKit.next(vm, EVENT_TIMEOUT_MS, " after set " + sets);
    }

    String name(ThreadReference t) {
        return names.computeIfAbsent(t, ThreadReference::name);
    }

    boolean isApp(ThreadReference t) {
        String n = name(t);
        return n.equals("main") || n.startsWith("hit-") || n.startsWith("vhit-");
    }

    BreakpointRequest breakAt(int line, int policy) throws Exception {
        Location at = fixture.locationsOfLine(line).get(0);
        BreakpointRequest bp = erm.createBreakpointRequest(at);
        bp.setSuspendPolicy(policy);
        bp.enable();
        return bp;
    }

    /** Resumes the VM up to the fixture's ClassPrepare (SUSPEND_ALL) and returns that set. */
    EventSet untilPrepared() throws Exception {
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("SimultaneousHits");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        // VMStart (suspend=y) first, then its set resumed: stock lets commands run
        // from the attach on but suspends the VM for VMStart later, on its event
        // helper thread, so a Resume sent before that set has come may be undone
        // (see ControlEdgesJdi.start).
        EventSet start = next();
        if (!(start.iterator().next() instanceof VMStartEvent)) {
            throw new IllegalStateException("the first event set is not the VMStart: " + start);
        }
        start.resume();
        while (true) {
            EventSet set = next();
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    fixture = (ClassType) ((ClassPrepareEvent) e).referenceType();
                    erm.deleteEventRequest(prepare);
                    return set;
                }
                if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    throw new IllegalStateException("the VM ended before the fixture loaded");
                }
            }
            if (!(set.iterator().next() instanceof VMStartEvent)) set.resume();
        }
    }

    // -- the model --

    /** The application's threads alive now: the listed ones and the virtual ones seen. */
    List<ThreadReference> appThreads(List<ThreadReference> others) {
        List<ThreadReference> app = new ArrayList<>();
        for (ThreadReference t : vm.allThreads()) {
            if (isApp(t)) {
                app.add(t);
            } else if (others != null) {
                others.add(t);
            }
        }
        for (ThreadReference v : seenVirtual) {
            if (!app.contains(v) && v.status() != ThreadReference.THREAD_STATUS_ZOMBIE) app.add(v);
        }
        return app;
    }

    void vmResume() {
        vm.resume();
        model.replaceAll((t, c) -> Math.max(0, c - 1));
    }

    void threadResume(ThreadReference t) {
        t.resume();
        model.computeIfPresent(t, (k, c) -> Math.max(0, c - 1));
    }

    /** Reads every application thread's count: the model's, or (mix) above it by at most
     *  what the sets after this one add (checked at the end, in checkObservations). */
    void checkCounts(List<ThreadReference> app, ThreadReference eventThread) {
        for (ThreadReference t : app) {
            int expected = model.getOrDefault(t, 0);
            int count = t.suspendCount();
            boolean suspended = t.isSuspended();
            String who = name(t) + (t.equals(eventThread) ? " (event thread)" : "");
            if (count < expected || (!scenario.equals("mix") && count != expected)) {
                mismatch("count", who + " count=" + count + " model=" + expected);
            } else if (count > expected) {
                observations.add(new int[] {sets, threadIndex(t), count - expected});
            }
            if (count > 0 && !suspended) mismatch("not-suspended", who + " count=" + count + " isSuspended=false");
        }
    }

    int threadIndex(ThreadReference t) {
        int i = indexed.indexOf(t);
        if (i < 0) {
            indexed.add(t);
            i = indexed.size() - 1;
        }
        return i;
    }

    /** A count above the model must be made of suspensions of sets read later. */
    void checkObservations() {
        for (int[] o : observations) {
            ThreadReference t = indexed.get(o[1]);
            int later = 0;
            for (int k = o[0]; k < adds.size(); k++) {  // adds.get(k) is set k + 1's
                Object a = adds.get(k);
                if (a == ALL || t.equals(a)) later++;
            }
            if (o[2] > later) {
                mismatch("count", name(t) + " at set " + o[0] + " was " + o[2] + " above the model; the sets after it add "
                        + later);
            } else {
                aheadOfModel++;
            }
        }
    }

    /** What an IDE reads of every thread at a stop: each stack, read twice, the same
     *  (a thread counted suspended does not move, also one that met the breakpoint
     *  while another's event was on its way and waits in the agent). */
    void checkStacks(List<ThreadReference> app) throws Exception {
        List<ThreadReference> refused = new ArrayList<>();
        for (ThreadReference t : app) {
            List<StackFrame> first;
            List<StackFrame> second;
            try {
                first = t.frames();
                second = t.frames();
            } catch (IncompatibleThreadStateException e) {
                // THREAD_NOT_SUSPENDED or INVALID_THREAD. A thread past its end event still takes
                // its last steps, suspended or not (a virtual thread's last unmount, whose end runs
                // on the carrier): one that has ended meanwhile is refused. Virtual threads: see
                // checkRefusedVirtual. Any other refusal is a thread counted suspended that is not.
                if (t.status() == ThreadReference.THREAD_STATUS_ZOMBIE) {
                    endedDuringStop++;
                } else if (name(t).startsWith("vhit-")) {
                    refused.add(t);
                } else {
                    mismatch("stack", name(t) + " refused: count " + t.suspendCount()
                            + ", isSuspended " + t.isSuspended() + ", status " + t.status() + ", model "
                            + model.getOrDefault(t, 0));
                }
                continue;
            }
            stacksRead++;
            boolean same = first.size() == second.size();  // none at all: a worker past its last round, ending
            for (int i = 0; same && i < first.size(); i++) same = first.get(i).location().equals(second.get(i).location());
            if (same) continue;
            if (t.status() == ThreadReference.THREAD_STATUS_ZOMBIE) {
                endedDuringStop++;
            } else {
                mismatch("stack", name(t) + " moved: " + first.size() + " then " + second.size() + " frames");
            }
        }
        if (!refused.isEmpty()) checkRefusedVirtual(refused);
    }

    /** The VM's own window (HotSpot, JDK 21+; both agents): a virtual thread's continuation is
     *  done (JVMTI: THREAD_NOT_ALIVE for its frames, JDWP INVALID_THREAD) a few steps before its
     *  state is TERMINATED (VirtualThread.runContinuation: unmount, then afterDone); a carrier
     *  suspended in between holds it there, alive (RUNNING) and counted suspended, for the
     *  whole stop. Tolerated only so: each refused one counted suspended as the model says, and
     *  as many carriers held past their continuation (VirtualThread.runContinuation on the
     *  stack, no Continuation frame, not mounting). */
    void checkRefusedVirtual(List<ThreadReference> refused) {
        List<String> held = new ArrayList<>();
        StringBuilder carriers = new StringBuilder();
        for (ThreadReference c : vm.allThreads()) {
            if (!c.referenceType().name().equals("jdk.internal.misc.CarrierThread")) continue;
            String stack = topFrames(c);
            carriers.append(" [").append(name(c)).append(' ').append(stack).append(']');
            if (heldPastContinuation(c)) held.add(name(c));
        }
        for (ThreadReference t : refused) {
            int count = t.suspendCount();
            int status = t.status();
            String what = name(t) + " refused: count " + count + " (model " + model.getOrDefault(t, 0) + "), status "
                    + status + "; carriers held past their continuation: " + held;
            System.out.println("DETAIL set " + sets + ": frames of " + what + ";" + carriers);
            if (count != model.getOrDefault(t, 0) || status != ThreadReference.THREAD_STATUS_RUNNING
                    || held.size() < refused.size()) {
                mismatch("stack", what);
            } else {
                virtualRefused++;
            }
        }
    }

    /** A carrier inside VirtualThread.runContinuation but outside the continuation it ran. */
    static boolean heldPastContinuation(ThreadReference c) {
        List<StackFrame> frames;
        try {
            frames = c.frames();
        } catch (IncompatibleThreadStateException e) {
            return false;
        }
        boolean inRunContinuation = false;
        for (int i = 0; i < frames.size(); i++) {
            Location l = frames.get(i).location();
            String type = l.declaringType().name();
            String method = l.method().name();
            if (type.equals("jdk.internal.vm.Continuation")) return false;
            if (i == 0 && method.equals("mount")) return false;
            if (type.equals("java.lang.VirtualThread") && method.equals("runContinuation")) inRunContinuation = true;
        }
        return inRunContinuation;
    }

    /** A thread's top frames, for the report. */
    String topFrames(ThreadReference c) {
        StringBuilder out = new StringBuilder();
        try {
            List<StackFrame> frames = c.frames();
            for (int i = 0; i < Math.min(4, frames.size()); i++) {
                Location l = frames.get(i).location();
                out.append(i == 0 ? "" : " < ").append(l.method().name()).append(':').append(l.lineNumber());
            }
        } catch (IncompatibleThreadStateException e) {
            out.append("frames refused");
        }
        return out.toString();
    }

    /** The VM's own threads are suspended by a SUSPEND_ALL set too. Carrier threads
     *  (JDK 21+) apart: JVMTI suspends a carrier whose virtual thread is mounted only
     *  when that one unmounts, and stock reports such a carrier not suspended
     *  (isSuspended false) while it counts it (suspendCount 1). */
    void checkSystemThread(ThreadReference o) {
        boolean carrier = carriers.computeIfAbsent(o, t -> t.referenceType().name().equals("jdk.internal.misc.CarrierThread"));
        if (carrier) {
            carriersChecked++;
        } else {
            systemChecked++;
        }
        if (o.isSuspended() || o.status() == ThreadReference.THREAD_STATUS_ZOMBIE) return;
        int notSuspended = carrier ? ++carriersNotSuspended : ++systemNotSuspended;
        if (notSuspended <= MISMATCHES_SHOWN) {
            System.out.println("DETAIL set " + sets + ": " + name(o) + " not suspended, count " + o.suspendCount()
                    + ", status " + o.status());
        }
    }

    /** The event thread's frame is at the breakpoint; its locals name a new hit. */
    void checkHit(BreakpointEvent bp, int line, String method, boolean record) throws Exception {
        ThreadReference t = bp.thread();
        if (bp.location().lineNumber() != line || !bp.location().method().name().equals(method)) {
            mismatch("location", name(t) + " event at " + bp.location());
        }
        StackFrame top = t.frame(0);
        if (!top.location().equals(bp.location())) mismatch("frame", name(t) + " frame 0 at " + top.location());
        if (!record) return;
        LocalVariable wv = top.visibleVariableByName("worker");
        LocalVariable rv = top.visibleVariableByName("round");
        Map<LocalVariable, Value> values = top.getValues(List.of(wv, rv));
        int worker = ((IntegerValue) values.get(wv)).value();
        int round = ((IntegerValue) values.get(rv)).value();
        if (!name(t).equals("hit-" + worker) && !name(t).equals("vhit-" + worker)) mismatch("frame", name(t) + " has worker=" + worker);
        if (!hitKeys.add(worker * 100_000 + round)) {
            duplicates++;
            mismatch("duplicate", name(t) + " worker=" + worker + " round=" + round + " reported again");
        }
        hits++;
        hitsPerThread.merge(name(t), 1, Integer::sum);
    }

    // -- the scenarios --

    void hits() throws Exception {
        EventSet prepared = untilPrepared();
        bpAll = breakAt(allLine, EventRequest.SUSPEND_ALL);
        if (scenario.equals("mix")) bpOne = breakAt(oneLine, EventRequest.SUSPEND_EVENT_THREAD);
        prepared.resume();
        long started = System.nanoTime();
        while (true) {
            EventSet set;
            try {
                set = next();
            } catch (VMDisconnectedException e) {
                break;
            }
            if (set.iterator().next() instanceof VMDisconnectEvent) break;
            if (set.iterator().next() instanceof VMDeathEvent) {
                sawDeath = true;
                set.resume();
                continue;
            }
            sets++;
            if (set.size() != 1) {
                multiEventSets++;
                mismatch("set-size", set.size() + " events: " + set);
            }
            BreakpointEvent bp = (BreakpointEvent) set.iterator().next();
            ThreadReference t = bp.thread();
            if (name(t).startsWith("vhit-")) seenVirtual.add(t);  // isVirtual() is JDK 21+ JDI
            EventRequest request = bp.request();
            if (request == bpAll) {
                allSets++;
                if (set.suspendPolicy() != EventRequest.SUSPEND_ALL) mismatch("policy", "SUSPEND_ALL set with " + set.suspendPolicy());
                List<ThreadReference> others = new ArrayList<>();
                List<ThreadReference> app = appThreads(others);
                for (ThreadReference a : app) model.merge(a, 1, Integer::sum);
                adds.add(ALL);
                if (!app.contains(t)) mismatch("count", name(t) + " (event thread) not among the live threads");
                checkCounts(app, t);
                for (ThreadReference o : others) checkSystemThread(o);
                checkHit(bp, allLine, "hitAll", true);
                checkStacks(app);
                if (scenario.equals("dispose") && allSets == DISPOSE_AT) {
                    disposeWhileRacing(app, t);
                    return;
                }
                if (scenario.equals("mix") && allSets % 4 == 0 && awaitingAfter == null) {
                    // Only this thread goes on; it must reach the next line while the others stay suspended.
                    bpAfter = erm.createBreakpointRequest(fixture.locationsOfLine(afterLine).get(0));
                    bpAfter.addThreadFilter(t);
                    bpAfter.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    bpAfter.enable();
                    awaitingAfter = t;
                    aloneResumes++;
                    threadResume(t);
                } else {
                    vmResume();
                }
            } else if (request == bpOne || (request != null && request == bpAfter)) {
                eventThreadSets++;
                if (set.suspendPolicy() != EventRequest.SUSPEND_EVENT_THREAD) mismatch("policy", "EVENT_THREAD set with " + set.suspendPolicy());
                model.merge(t, 1, Integer::sum);
                adds.add(t);
                checkCounts(appThreads(null), t);
                if (request == bpOne) {
                    checkHit(bp, oneLine, "hitOne", true);
                    if (++oneSets % 5 == 0) {
                        // An IDE's pause while other threads run into their breakpoints.
                        vm.suspend();
                        model.replaceAll((k, c) -> c + 1);
                        vmSuspends++;
                        checkCounts(appThreads(null), t);
                        vmResume();
                    }
                    threadResume(t);
                } else {
                    checkHit(bp, afterLine, "hitAll", false);
                    if (!t.equals(awaitingAfter)) mismatch("after", name(t) + " at the filtered line");
                    afterHits++;
                    erm.deleteEventRequest(bpAfter);
                    bpAfter = null;
                    awaitingAfter = null;
                    vmResume();  // the others, held since the SUSPEND_ALL set, and this one
                }
            } else {
                mismatch("request", "event of an unknown request: " + set);
                adds.add(null);
                set.resume();
            }
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        checkObservations();
        System.out.println("DETAIL " + sets + " sets in " + ms + " ms; per thread " + hitsPerThread
                + "; counts read above the model (sets on their way): " + aheadOfModel
                + "; threads resumed alone: " + aloneResumes + "; VM suspensions: " + vmSuspends
                + "; stacks read twice: " + stacksRead
                + (endedDuringStop > 0 ? "; threads that ended during a stop: " + endedDuringStop : "")
                + (virtualRefused > 0 ? "; virtual threads' frames refused at a stop: " + virtualRefused : ""));
        summary();
    }

    void summary() {
        int expected = workers * rounds;
        boolean even = hitsPerThread.size() == workers && hitsPerThread.values().stream().allMatch(n -> n == rounds);
        JdiKit.report("hits", "total=" + hits + "/" + expected + " distinct=" + hitKeys.size() + " duplicates=" + duplicates
                + " per-thread=" + (even ? "even" : hitsPerThread.toString()));
        JdiKit.report("sets", "one-event-each=" + (multiEventSets == 0) + " all=" + allSets
                + (scenario.equals("mix") ? " after=" + (afterHits == aloneResumes ? "matches" : afterHits + "/" + aloneResumes) : ""));
        JdiKit.report("mismatches", mismatches.isEmpty() ? "none" : mismatches.toString());
        JdiKit.report("system-threads", systemChecked == 0 ? "none" : (systemNotSuspended == 0 ? "suspended" : systemNotSuspended + " not suspended"));
        JdiKit.report("carriers", carriersChecked == 0 ? "none" : (carriersNotSuspended == 0 ? "suspended" : carriersNotSuspended + " not suspended"));
        JdiKit.report("vm-death", sawDeath);
    }

    /** DISPOSE_AT-th stop: the stopped workers are resumed one by one and race into the
     *  breakpoint again; the debugger disposes while they do. */
    void disposeWhileRacing(List<ThreadReference> app, ThreadReference eventThread) {
        int resumed = 0;
        for (ThreadReference a : app) {
            if (!a.equals(eventThread) && name(a).startsWith("hit-")) {
                a.resume();
                resumed++;
            }
        }
        vm.dispose();
        System.out.println("DETAIL disposed at set " + sets + " after resuming " + resumed + " workers on their own");
        JdiKit.report("dispose", "at=" + allSets + " " + (mismatches.isEmpty() ? "no-mismatch" : mismatches.toString()));
    }

    void second() throws Exception {
        List<ThreadReference> live = vm.allThreads();
        List<String> counted = new ArrayList<>();
        for (ThreadReference t : live) {
            if (t.status() != ThreadReference.THREAD_STATUS_ZOMBIE && t.suspendCount() != 0) {
                counted.add(name(t) + "=" + t.suspendCount());
            }
        }
        boolean workersLeft = live.stream().anyMatch(t -> name(t).startsWith("hit-")
                && t.status() != ThreadReference.THREAD_STATUS_ZOMBIE);
        JdiKit.report("second-counts", counted.isEmpty() ? "all-0" : counted.toString());
        JdiKit.report("second-workers-left", workersLeft);
        fixture = (ClassType) vm.classesByName("SimultaneousHits").get(0);
        BreakpointRequest tick = breakAt(tickLine, EventRequest.SUSPEND_EVENT_THREAD);
        EventSet set = next();
        BreakpointEvent bp = (BreakpointEvent) set.iterator().next();
        ThreadReference t = bp.thread();
        JdiKit.report("second-hit", name(t) + " " + t.isSuspended() + "/" + t.suspendCount() + " line="
                + (t.frame(0).location().lineNumber() == tickLine) + " events=" + set.size());
        erm.deleteEventRequest(tick);
        fixture.setValue(fixture.fieldByName("released"), vm.mirrorOf(true));
        set.resume();
        while (true) {
            try {
                EventSet s = next();
                if (s.iterator().next() instanceof VMDisconnectEvent) break;
                s.resume();
            } catch (VMDisconnectedException e) {
                break;
            }
        }
    }
}
