// Regressions found by review (see fixtures/ControlEdges.java), through the
// JDK's JDI against a ControlEdges debuggee (eclipse/ControlEdgesEclipse.java runs
// the same through Eclipse's JDI).
//
// Usage: ControlEdgesJdi <scenario> <debuggeePort> <ControlEdges.java path> [control port]
//   watch, sleep, pop: the debuggee runs `ControlEdges <scenario>` with suspend=y;
//     the driver runs it to its end.
//   unload-first: makes a ClassUnload request and disposes (server=y,suspend=n).
//   unload-second <control port>: makes a ClassUnload request and a breakpoint
//     in afterUnload(), tells the debuggee (one byte to the control port) to drop
//     and collect its class, and waits for the unload.
// Output: DETAIL lines, then SCENARIO <name> PASS | FAIL <detail>, then
// RESULT ok | RESULT fail: <reason>.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.ClassUnloadEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.ModificationWatchpointEvent;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.ClassUnloadRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.ModificationWatchpointRequest;
import com.sun.jdi.request.StepRequest;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class ControlEdgesJdi {
    static final long EVENT_TIMEOUT_MS = 30_000;

    final Map<String, Integer> lines = new HashMap<>();
    VirtualMachine vm;
    EventRequestManager erm;

    public static void main(String[] args) {
        System.exit(run(Bootstrap.virtualMachineManager(), args, vm -> {}));
    }

    // Runs one scenario through the given JDI implementation; returns the exit code.
    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        ControlEdgesJdi d = new ControlEdgesJdi();
        String scenario = args[0];
        try {
            d.readTags(args[2]);
            d.attach(vmm, Integer.parseInt(args[1]));
            configure.accept(d.vm);
            switch (scenario) {
                case "watch": d.watch(); break;
                case "sleep": d.sleep(); break;
                case "pop": d.pop(); break;
                case "unload-first": d.unloadFirst(); break;
                case "unload-second": d.unloadSecond(Integer.parseInt(args[3])); break;
                default: throw new IllegalArgumentException(scenario);
            }
            System.out.println("SCENARIO " + scenario + " PASS");
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
            System.out.println("SCENARIO " + scenario + " FAIL " + t.toString().replace('\n', ' '));
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            return 1;
        }
    }

    void readTags(String source) throws Exception {
        Pattern p = Pattern.compile("// @([\\w-]+)");
        List<String> all = Files.readAllLines(Paths.get(source));
        for (int i = 0; i < all.size(); i++) {
            Matcher m = p.matcher(all.get(i));
            if (m.find()) lines.put(m.group(1), i + 1);
        }
    }

    int line(String tag) {
        Integer n = lines.get(tag);
        if (n == null) throw new IllegalStateException("no @" + tag + " in the fixture");
        return n;
    }

    // Eclipse's JDI hands out a live view of its request list, and its
    // deleteEventRequests iterates the list it is given while deleting.
    static <T> List<T> copy(List<T> requests) {
        return new ArrayList<>(requests);
    }

    static void detail(String text) {
        System.out.println("DETAIL " + text);
    }

    void attach(VirtualMachineManager vmm, int port) throws Exception {
        vm = JdiKit.attach(vmm, port);
        erm = vm.eventRequestManager();
    }

    // Starts a debuggee launched with suspend=y: waits for its VMStart set, then
    // resumes it. Not a Resume sent right after the attach: stock (debugInit.c
    // initialize()) lets the debugger's commands run from the connection on, but
    // suspends all threads for VMStart only after that, on its event helper
    // thread; a Resume that came first is then undone, and the VM never runs (seen
    // on JDK 17: no ClassPrepare of ControlEdges within 30 s).
    void start() throws Exception {
        EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
        JdiKit.check(set.iterator().next() instanceof VMStartEvent, "the first event set is not the VMStart: " + set);
        set.resume();
    }

    // Requests a ClassPrepare of ControlEdges (SUSPEND_ALL), starts the VM and
    // returns the prepared class, still suspended.
    ClassType prepareFixture() throws Exception {
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("ControlEdges");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        start();
        while (true) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    prepare.disable();
                    return (ClassType) ((ClassPrepareEvent) e).referenceType();
                }
                JdiKit.check(!JdiKit.ends(e), "the VM ended before ControlEdges was prepared");
            }
            set.resume();
        }
    }

    // A SUSPEND_EVENT_THREAD breakpoint at the tagged line; hits > 0: only that many times.
    BreakpointRequest breakpoint(ReferenceType type, String tag, int hits) throws Exception {
        List<Location> at = type.locationsOfLine(line(tag));
        JdiKit.check(!at.isEmpty(), "no code at @" + tag);
        BreakpointRequest bp = erm.createBreakpointRequest(at.get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        if (hits > 0) bp.addCountFilter(hits);
        bp.enable();
        return bp;
    }

    // ---- watch: one watch per field, each the first instance field of its class ----
    void watch() throws Exception {
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("ControlEdges$*");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        prepare.enable();
        Map<String, List<String>> seen = new TreeMap<>();
        Map<ModificationWatchpointRequest, String> watched = new HashMap<>();
        start();
        boolean done = false;
        while (!done) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    ReferenceType t = ((ClassPrepareEvent) e).referenceType();
                    if (!t.name().equals("ControlEdges$A") && !t.name().equals("ControlEdges$B")) continue;
                    List<Field> fields = t.fields();
                    JdiKit.check(fields.size() == 1, t.name() + " has fields " + fields);
                    ModificationWatchpointRequest w = erm.createModificationWatchpointRequest(fields.get(0));
                    w.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    w.enable();
                    watched.put(w, t.name() + "." + fields.get(0).name());
                } else if (e instanceof ModificationWatchpointEvent) {
                    ModificationWatchpointEvent m = (ModificationWatchpointEvent) e;
                    String field = m.field().declaringType().name() + "." + m.field().name();
                    JdiKit.check(field.equals(watched.get((ModificationWatchpointRequest) m.request())),
                          "the watch of " + watched.get(m.request()) + " reported " + field);
                    JdiKit.check(m.object().referenceType().equals(m.field().declaringType()),
                          field + " reported on an object of " + m.object().referenceType().name());
                    seen.computeIfAbsent(field, k -> new ArrayList<>()).add(m.valueToBe().toString());
                } else if (JdiKit.ends(e)) {
                    done = true;
                }
            }
            if (!done) set.resume();
        }
        detail("modifications " + seen);
        JdiKit.check(watched.size() == 2, "watches set: " + watched.values());
        Map<String, List<String>> want = new TreeMap<>();
        want.put("ControlEdges$A.a", List.of("1", "2", "3"));
        want.put("ControlEdges$B.b", List.of("10", "20"));
        JdiKit.check(seen.equals(want), "modifications " + seen + ", expected " + want);
    }

    // ---- sleep: MethodEntry of Thread's (native) sleep while stepping over it ----
    void sleep() throws Exception {
        ClassType fixture = prepareFixture();
        breakpoint(fixture, "bp-sleep", 0);
        vm.resume();
        ThreadReference thread = null;
        List<String> entries = new ArrayList<>();
        boolean sawNativeSleep = false;
        int stepLine = -1;
        boolean done = false;
        while (!done) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    thread = ((BreakpointEvent) e).thread();
                    erm.deleteEventRequest(e.request());
                    StepRequest step = erm.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
                    step.addCountFilter(1);
                    step.enable();
                    MethodEntryRequest entry = erm.createMethodEntryRequest();
                    entry.addClassFilter("java.lang.Thread");
                    entry.addThreadFilter(thread);
                    entry.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    entry.enable();
                } else if (e instanceof MethodEntryEvent) {
                    MethodEntryEvent m = (MethodEntryEvent) e;
                    Method top = m.thread().frame(0).location().method();
                    entries.add(m.method().name() + (m.method().isNative() ? "(native)" : "") + "@top=" + top.name());
                    // Reported on entry: the thread is still in the method entered
                    // (for the native sleep: sleeping, not back in the caller).
                    JdiKit.check(top.equals(m.method()), "MethodEntry of " + m.method() + " read with " + top
                          + " on top; entries so far " + entries);
                    if (m.method().isNative() && m.method().name().startsWith("sleep")) sawNativeSleep = true;
                } else if (e instanceof StepEvent) {
                    StepEvent s = (StepEvent) e;
                    stepLine = s.location().lineNumber();
                    JdiKit.check(s.location().method().name().equals("sleep")
                          && s.location().declaringType().name().equals("ControlEdges"),
                          "step ended in " + s.location());
                    erm.deleteEventRequests(copy(erm.methodEntryRequests()));
                } else if (JdiKit.ends(e)) {
                    done = true;
                }
            }
            if (!done) set.resume();
        }
        detail("entries " + entries + " step line " + stepLine);
        JdiKit.check(sawNativeSleep, "no MethodEntry of a native Thread.sleep*: " + entries);
        JdiKit.check(stepLine == line("after-sleep"), "step over the sleep ended at line " + stepLine);
    }

    // ---- pop: a step request outlives a PopFrames at its first event ----
    void pop() throws Exception {
        ClassType fixture = prepareFixture();
        breakpoint(fixture, "bp-popped", 1); // not again when the pop re-runs the call
        vm.resume();
        List<String> after = new ArrayList<>();
        boolean popped = false;
        boolean done = false;
        while (!done) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    ThreadReference t = ((BreakpointEvent) e).thread();
                    erm.createStepRequest(t, StepRequest.STEP_LINE, StepRequest.STEP_OVER).enable();
                } else if (e instanceof StepEvent) {
                    StepEvent s = (StepEvent) e;
                    if (!popped) {
                        JdiKit.check(s.location().lineNumber() == line("popped-second-line"), "first step at " + s.location());
                        ThreadReference t = s.thread();
                        t.popFrames(t.frame(0));
                        popped = true;
                        StackFrame top = t.frame(0);
                        JdiKit.check(top.location().method().name().equals("pop")
                              && top.location().lineNumber() == line("pop-first-call"),
                              "after the pop the thread is at " + top.location());
                    } else {
                        after.add(s.location().method().name() + ":" + s.location().lineNumber());
                        if (after.size() == 3) erm.deleteEventRequests(copy(erm.stepRequests()));
                    }
                } else if (JdiKit.ends(e)) {
                    done = true;
                }
            }
            if (!done) set.resume();
        }
        detail("steps after the pop " + after);
        // popped(1) runs again (stepped over), then the rest of pop().
        List<String> want = List.of("pop:" + line("pop-second-call"), "pop:" + line("pop-print"), "pop:" + line("pop-end"));
        JdiKit.check(after.equals(want), "steps after the pop " + after + ", expected " + want);
    }

    // ---- unload ----
    void unloadFirst() {
        ClassUnloadRequest unload = erm.createClassUnloadRequest();
        unload.enable();
        vm.dispose();
    }

    void unloadSecond(int controlPort) throws Exception {
        ClassUnloadRequest unload = erm.createClassUnloadRequest();
        unload.addClassFilter("ControlEdgesUnload*");
        unload.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        unload.enable();
        List<ReferenceType> found = vm.classesByName("ControlEdges");
        JdiKit.check(found.size() == 1, "ControlEdges loaded " + found.size() + " times");
        ClassType fixture = (ClassType) found.get(0);
        breakpoint(fixture, "bp-after-unload", 0);
        try (Socket control = new Socket("127.0.0.1", controlPort); OutputStream out = control.getOutputStream()) {
            out.write(1);
        }
        List<String> unloaded = new ArrayList<>();
        int carriers = 0;
        while (unloaded.isEmpty()) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof ClassUnloadEvent) {
                    unloaded.add(((ClassUnloadEvent) e).className());
                } else if (e instanceof BreakpointEvent) {
                    carriers++;
                }
                JdiKit.check(!JdiKit.ends(e), "the VM ended without a ClassUnload; carriers " + carriers);
            }
            if (!unloaded.isEmpty()) fixture.setValue(fixture.fieldByName("stopCarrying"), vm.mirrorOf(true));
            set.resume();
        }
        detail("unloaded " + unloaded + " after " + carriers + " carrier breakpoints");
        JdiKit.check(unloaded.equals(List.of("ControlEdgesUnloadable")), "unloaded " + unloaded);
        // The fixture ends as soon as it reads stopCarrying, so the VM may be gone
        // before these two are answered (the test checks its exit code).
        try {
            erm.deleteAllBreakpoints();
            vm.dispose();
        } catch (VMDisconnectedException e) {
            detail("the VM ended before dispose");
        }
    }
}
