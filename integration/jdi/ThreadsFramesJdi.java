// com.sun.jdi view of the ThreadsFrames fixture, for test_threads_frames.py:
// attaches to 127.0.0.1:<port> and prints "CHECK ..." lines that the test
// compares, the same for our agent and stock; "RESULT ok" at the end.
//
// Usage: ThreadsFramesJdi <port> [virtual]
// "virtual" (JDK 21+): also virtual threads. JDK 21 API (isVirtual) is reached
// by reflection: this file is compiled for release 17.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassType;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.MonitorInfo;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

public class ThreadsFramesJdi {
    static VirtualMachine vm;
    static ClassType fixture;

    public static void main(String[] args) throws Exception {
        try {
            vm = JdiKit.attach(Bootstrap.virtualMachineManager(), Integer.parseInt(args[0]));
            fixture = (ClassType) vm.classesByName("ThreadsFrames").get(0);
            if (args.length > 1 && args[1].equals("virtual")) {
                virtualThreads();
            } else {
                platformThreads();
            }
            vm.dispose();
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    static ThreadReference thread(String name) {
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalStateException("no thread " + name);
    }

    static Value field(String name) {
        return fixture.getValue(fixture.fieldByName(name));
    }

    static String lockName(Value v) {
        if (v.equals(field("lockA"))) return "lockA";
        if (v.equals(field("lockB"))) return "lockB";
        return String.valueOf(v);
    }

    static StackFrame frameOf(ThreadReference t, String method) throws Exception {
        for (StackFrame f : t.frames()) {
            if (f.location().method().name().equals(method)) {
                return f;
            }
        }
        throw new IllegalStateException("no frame of " + method + " in " + t.name());
    }

    static String describe(Value v) {
        if (v == null) return "null";
        if (v instanceof StringReference) return "\"" + ((StringReference) v).value() + "\"";
        if (v instanceof ThreadReference) return ((ThreadReference) v).name();
        if (v instanceof com.sun.jdi.ArrayReference) return "int[" + ((com.sun.jdi.ArrayReference) v).length() + "]";
        if (v instanceof com.sun.jdi.ThreadGroupReference) return "ThreadGroup";
        if (v instanceof com.sun.jdi.ClassObjectReference) {
            return ((com.sun.jdi.ClassObjectReference) v).reflectedType().name();
        }
        if (v instanceof com.sun.jdi.ClassLoaderReference) return "ClassLoader";
        if (v instanceof ObjectReference) return ((ObjectReference) v).referenceType().name();
        return v.toString();
    }

    static void platformThreads() throws Exception {
        ThreadReference owner = thread("tf-owner");
        owner.suspend();
        List<String> owned = new ArrayList<>();
        for (ObjectReference m : owner.ownedMonitors()) owned.add(lockName(m));
        owned.sort(null);
        JdiKit.report("owned-monitors=" + String.join(",", owned));
        List<String> depths = new ArrayList<>();
        for (MonitorInfo mi : owner.ownedMonitorsAndFrames()) {
            String method = owner.frame(mi.stackDepth()).location().method().name();
            String expected = lockName(mi.monitor()).equals("lockA") ? "holdA" : "holdB";
            depths.add(method.equals(expected) ? method : method + "!=" + expected);
        }
        depths.sort(null);
        JdiKit.report("owned-depths=" + String.join(",", depths));
        owner.resume();

        ThreadReference blocked = thread("tf-blocked");
        blocked.suspend();
        JdiKit.report("contended=" + lockName(blocked.currentContendedMonitor()));
        blocked.resume();

        ThreadReference locals = thread("tf-locals");
        locals.suspend();
        StackFrame f = frameOf(locals, "localsFrame");
        List<String> values = new ArrayList<>();
        for (String n : new String[] {"z", "b", "c", "s", "i", "j", "f", "d", "str", "arr", "obj", "thr", "grp",
                                      "cls", "ldr", "nul"}) {
            values.add(describe(f.getValue(f.visibleVariableByName(n))));
        }
        JdiKit.report("locals=" + String.join(",", values));
        JdiKit.report("static-this=" + f.thisObject());
        ObjectReference self = frameOf(locals, "instanceFrame").thisObject();
        JdiKit.report("instance-this=" + ((StringReference) self.getValue(self.referenceType().fieldByName("label"))).value());
        locals.resume();

        ThreadReference deep = thread("tf-deep");
        deep.suspend();
        long started = System.nanoTime();
        int n = 0;
        for (StackFrame sf : deep.frames()) {
            if (sf.location().method().name().equals("deep")) n++;
        }
        System.out.println("TIMING jdi frames " + deep.frameCount() + " in "
                + (System.nanoTime() - started) / 1_000_000 + " ms");
        JdiKit.report("deep-frames=" + n);
        deep.resume();
    }

    static boolean isVirtual(ThreadReference t) throws Exception {
        return (Boolean) ThreadReference.class.getMethod("isVirtual").invoke(t);
    }

    static void virtualThreads() throws Exception {
        boolean listed = false;
        for (ThreadReference t : vm.allThreads()) {
            if (t.name().equals("vt-parked") || t.name().equals("vt-runner")) listed = true;
        }
        JdiKit.report("all-threads-has-virtual=" + listed);

        ThreadReference parked = (ThreadReference) field("parkedVirtual");
        JdiKit.report("vt-parked virtual=" + isVirtual(parked) + " group=" + parked.threadGroup().name());
        parked.suspend();
        StackFrame f = frameOf(parked, "virtualFrame");
        JdiKit.report("vt-parked frames-have=" + f.location().method().name() + " where="
                + describe(f.getValue(f.visibleVariableByName("where"))) + " token="
                + f.getValue(f.visibleVariableByName("token")));
        JdiKit.report("vt-parked suspend-count=" + parked.suspendCount());
        parked.resume();

        // A breakpoint hit in a mounted virtual thread reports that thread.
        Location loc = fixture.methodsByName("virtualBreak").get(0).location();
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(loc);
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
        BreakpointEvent hit = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (hit == null && System.nanoTime() < deadline) {
            EventSet set = vm.eventQueue().remove(1000);
            if (set == null) continue;
            for (Event e : set) {
                if (e instanceof BreakpointEvent) hit = (BreakpointEvent) e;
            }
            if (hit == null) set.resume();
        }
        if (hit == null) throw new IllegalStateException("no breakpoint in vt-runner within 30 s");
        bp.disable();
        ThreadReference runner = hit.thread();
        JdiKit.report("breakpoint thread=" + runner.name() + " virtual=" + isVirtual(runner));
        StackFrame top = runner.frame(0);
        LocalVariable k = top.location().method().arguments().get(0);
        JdiKit.report("breakpoint frame0=" + top.location().method().name() + " k-is-int="
                + (top.getValue(k) instanceof IntegerValue));
        runner.resume();

        vm.suspend();
        JdiKit.report("vm-suspend owner-suspended=" + thread("tf-owner").isSuspended());
        vm.resume();
        JdiKit.report("vm-resume done");
    }
}
