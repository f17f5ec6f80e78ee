// Frame and thread control through com.sun.jdi: StackFrame.setValue,
// ThreadReference.forceEarlyReturn / stop / interrupt and StackFrame's
// popFrames (the top frame; two frames; a frame whose caller is native).
// Written once, run by the JDK's JDI (main() here) and by Eclipse's
// (eclipse/FramesControlEclipse.java passes its VirtualMachineManager to run()).
//
// Usage: FramesControlJdi <debuggeePort> <FramesControl.java path> <jdk feature version>
// The debuggee is FramesControl started with server=y,suspend=y. Breakpoints
// (SUSPEND_EVENT_THREAD) go at the fixture's @bp-* lines; each hit runs one
// scenario and resumes. The debuggee prints what the debugger changed; the
// Python test checks that output. Output, one line each:
//   SCENARIO <name> PASS | FAIL <detail> | SKIP <reason>
//   RESULT ok | RESULT fail: <reason>
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassType;
import com.sun.jdi.Field;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class FramesControlJdi {
    final Map<String, Integer> lines = new HashMap<>();
    final Map<Integer, String> tags = new HashMap<>();
    VirtualMachine vm;
    int jdk;
    int leafHits;

    public static void main(String[] args) {
        System.exit(run(Bootstrap.virtualMachineManager(), "jdk", args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String client, String[] args, Consumer<VirtualMachine> configure) {
        FramesControlJdi d = new FramesControlJdi();
        try {
            d.jdk = Integer.parseInt(args[2]);
            d.readTags(args[1]);
            d.attach(vmm, Integer.parseInt(args[0]), configure);
            d.loop();
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
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
            if (m.find()) {
                lines.put(m.group(1), i + 1);
                tags.put(i + 1, m.group(1));
            }
        }
    }

    static void pass(String name) {
        System.out.println("SCENARIO " + name + " PASS");
    }

    static void fail(String name, String detail) {
        System.out.println("SCENARIO " + name + " FAIL " + detail);
    }

    void attach(VirtualMachineManager vmm, int port, Consumer<VirtualMachine> configure) throws Exception {
        vm = JdiKit.attach(vmm, port);
        configure.accept(vm);
        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter("FramesControl");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
    }

    void loop() throws Exception {
        while (true) {
            EventSet set = JdiKit.next(vm, 60_000);
            for (Event event : set) {
                if (event instanceof ClassPrepareEvent) {
                    ReferenceType type = ((ClassPrepareEvent) event).referenceType();
                    for (Map.Entry<String, Integer> e : lines.entrySet()) {
                        if (!e.getKey().startsWith("bp-")) continue;
                        List<Location> at = type.locationsOfLine(e.getValue());
                        if (at.isEmpty()) throw new IllegalStateException("no code at line " + e.getValue());
                        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at.get(0));
                        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                        bp.enable();
                    }
                } else if (event instanceof BreakpointEvent) {
                    BreakpointEvent hit = (BreakpointEvent) event;
                    String tag = tags.get(hit.location().lineNumber());
                    try {
                        scenario(tag, hit.thread(), (ClassType) hit.location().declaringType());
                    } catch (Throwable t) {
                        fail(tag, t.toString().replace('\n', ' '));
                    }
                } else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
                    return;
                }
            }
            set.resume();
        }
    }

    int line(StackFrame f) {
        return f.location().lineNumber();
    }

    void scenario(String tag, ThreadReference t, ClassType fixture) throws Exception {
        switch (tag) {
            case "bp-locals": {
                StackFrame f = t.frame(0);
                Map<String, Value> want = new HashMap<>();
                want.put("z", vm.mirrorOf(true));
                want.put("b", vm.mirrorOf((byte) 11));
                want.put("c", vm.mirrorOf('b'));
                want.put("s", vm.mirrorOf((short) 12));
                want.put("i", vm.mirrorOf(13));
                want.put("j", vm.mirrorOf(14L));
                want.put("f", vm.mirrorOf(15.5f));
                want.put("d", vm.mirrorOf(16.5));
                want.put("str", vm.mirrorOf("y"));
                for (Map.Entry<String, Value> e : want.entrySet()) {
                    LocalVariable v = f.visibleVariableByName(e.getKey());
                    f.setValue(v, e.getValue());
                }
                StackFrame again = t.frame(0);
                for (Map.Entry<String, Value> e : want.entrySet()) {
                    Value got = again.getValue(again.visibleVariableByName(e.getKey()));
                    JdiKit.check(got.equals(e.getValue()), e.getKey() + " reads back " + got + ", set " + e.getValue());
                }
                pass("set-values");
                return;
            }
            case "bp-early-int":
                t.forceEarlyReturn(vm.mirrorOf(42));
                pass("early-int");
                return;
            case "bp-early-long":
                t.forceEarlyReturn(vm.mirrorOf(99L));
                pass("early-long");
                return;
            case "bp-early-object":
                t.forceEarlyReturn(vm.mirrorOf("forced"));
                pass("early-object");
                return;
            case "bp-early-void":
                t.forceEarlyReturn(vm.mirrorOfVoid());
                pass("early-void");
                return;
            case "bp-pop-leaf": {
                leafHits++;
                int before = t.frameCount();
                if (leafHits == 1) {
                    t.popFrames(t.frame(0));
                    JdiKit.check(t.frameCount() == before - 1, "frame count " + t.frameCount() + " after popping 1 of " + before);
                    StackFrame top = t.frame(0);
                    JdiKit.check(top.location().method().name().equals("popMiddle"), "top is " + top.location().method());
                    JdiKit.check(line(top) == lines.get("call-leaf"), "top line " + line(top));
                    JdiKit.check(t.suspendCount() == 1, "suspend count " + t.suspendCount());
                    JdiKit.check(t.isSuspended(), "not suspended after the pop");
                    pass("pop-top-frame");
                } else if (leafHits == 2) {
                    t.popFrames(t.frame(1));
                    JdiKit.check(t.frameCount() == before - 2, "frame count " + t.frameCount() + " after popping 2 of " + before);
                    StackFrame top = t.frame(0);
                    JdiKit.check(top.location().method().name().equals("popOuter"), "top is " + top.location().method());
                    JdiKit.check(line(top) == lines.get("call-middle"), "top line " + line(top));
                    JdiKit.check(t.suspendCount() == 1, "suspend count " + t.suspendCount());
                    // The popped thread's locals read fine at its new top.
                    JdiKit.check(top.visibleVariables().isEmpty() || top.getValues(top.visibleVariables()) != null, "locals");
                    pass("pop-two-frames");
                } else {
                    JdiKit.check(leafHits == 3, "leaf hit " + leafHits + " times");
                    pass("pop-reentered");
                }
                return;
            }
            case "bp-reflected": {
                if (!t.frame(1).location().method().isNative()) {
                    System.out.println("SCENARIO pop-native-caller SKIP reflection has no native frame on jdk" + jdk);
                    return;
                }
                int before = t.frameCount();
                String error = "none";
                try {
                    t.popFrames(t.frame(0));
                } catch (Exception e) {
                    error = e.getClass().getName() + ": " + e.getMessage();
                }
                // OPAQUE_FRAME (32) on the wire: Eclipse's JDI maps it, the JDK 17's does not.
                JdiKit.check(error.startsWith("com.sun.jdi.NativeMethodException")
                        || error.equals("com.sun.jdi.InternalException: Unexpected JDWP Error: 32"),
                        "popFrames threw " + error);
                JdiKit.check(t.frameCount() == before, "frame count " + t.frameCount() + ", was " + before);
                JdiKit.check(line(t.frame(0)) == lines.get("bp-reflected"), "top line " + line(t.frame(0)));
                JdiKit.check(t.suspendCount() == 1, "suspend count " + t.suspendCount());
                pass("pop-native-caller");
                return;
            }
            case "bp-stop": {
                Field prepared = fixture.fieldByName("PREPARED");
                t.stop((ObjectReference) fixture.getValue(prepared));
                pass("stop");
                return;
            }
            case "bp-interrupt":
                t.interrupt();
                pass("interrupt");
                return;
            default:
                throw new IllegalStateException("unexpected breakpoint " + tag);
        }
    }
}
