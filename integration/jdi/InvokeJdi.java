// Value modification and method invocation through com.sun.jdi, run by the
// JDK's JDI and (eclipse/InvokeEclipse.java) by Eclipse's. Attaches to an
// InvokeFixture debuggee (server=y, suspend=n), stops at @bp-invoke and prints
// one "SCENARIO <name> PASS|FAIL <detail>" line per scenario; test_invoke.py
// checks them.
//
// Usage: InvokeJdi <debuggeePort> <bpLine>
import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.util.List;
import java.util.function.Consumer;

public final class InvokeJdi {
    interface Scenario { void run() throws Exception; }

    VirtualMachine vm;
    ThreadReference thread;
    ClassType fixture;
    ObjectReference instance;
    int failures;

    public static void main(String[] args) throws Exception {
        System.exit(run(Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) throws Exception {
        InvokeJdi s = new InvokeJdi();
        s.attach(vmm, Integer.parseInt(args[0]), Integer.parseInt(args[1]), configure);
        s.all();
        s.release();
        System.out.println("RESULT " + (s.failures == 0 ? "ok" : "fail"));
        return s.failures == 0 ? 0 : 3;
    }

    void attach(VirtualMachineManager vmm, int port, int line, Consumer<VirtualMachine> configure) throws Exception {
        vm = JdiKit.attach(vmm, port);
        configure.accept(vm);
        fixture = (ClassType) vm.classesByName("InvokeFixture").get(0);
        Location at = fixture.locationsOfLine(line).get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at);
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        while (thread == null) {
            EventSet set = JdiKit.next(vm, 60_000);
            for (Event e : set) {
                if (e instanceof BreakpointEvent) thread = ((BreakpointEvent) e).thread();
            }
            if (thread == null) set.resume();
        }
        bp.disable();
        instance = (ObjectReference) fixture.getValue(fixture.fieldByName("instance"));
    }

    void release() throws Exception {
        fixture.setValue(fixture.fieldByName("released"), vm.mirrorOf(true));
        // Dispose resumes the VM itself; a resume first could let the program end
        // before Dispose is answered (VMDisconnectedException).
        vm.dispose();
    }

    void scenario(String name, Scenario body) {
        try {
            body.run();
            System.out.println("SCENARIO " + name + " PASS");
        } catch (Throwable t) {
            failures++;
            System.out.println("SCENARIO " + name + " FAIL " + t.toString().replace('\n', ' '));
        }
    }

    Method method(ReferenceType type, String name) {
        return type.methodsByName(name).get(0);
    }

    Value callStatic(String name, Value... args) throws Exception {
        return fixture.invokeMethod(thread, method(fixture, name), List.of(args), 0);
    }

    void all() {
        scenario("set.instance-fields", () -> {
            instance.setValue(fixture.fieldByName("z"), vm.mirrorOf(true));
            instance.setValue(fixture.fieldByName("b"), vm.mirrorOf((byte) -9));
            instance.setValue(fixture.fieldByName("c"), vm.mirrorOf('Q'));
            instance.setValue(fixture.fieldByName("s"), vm.mirrorOf((short) 1234));
            instance.setValue(fixture.fieldByName("i"), vm.mirrorOf(-5));
            instance.setValue(fixture.fieldByName("j"), vm.mirrorOf(1L << 50));
            instance.setValue(fixture.fieldByName("f"), vm.mirrorOf(2.75f));
            instance.setValue(fixture.fieldByName("d"), vm.mirrorOf(1e-3));
            instance.setValue(fixture.fieldByName("str"), vm.mirrorOf("jdi text"));
            JdiKit.expect("z", vm.mirrorOf(true), instance.getValue(fixture.fieldByName("z")));
            JdiKit.expect("b", vm.mirrorOf((byte) -9), instance.getValue(fixture.fieldByName("b")));
            JdiKit.expect("c", vm.mirrorOf('Q'), instance.getValue(fixture.fieldByName("c")));
            JdiKit.expect("s", vm.mirrorOf((short) 1234), instance.getValue(fixture.fieldByName("s")));
            JdiKit.expect("i", vm.mirrorOf(-5), instance.getValue(fixture.fieldByName("i")));
            JdiKit.expect("j", vm.mirrorOf(1L << 50), instance.getValue(fixture.fieldByName("j")));
            JdiKit.expect("f", vm.mirrorOf(2.75f), instance.getValue(fixture.fieldByName("f")));
            JdiKit.expect("d", vm.mirrorOf(1e-3), instance.getValue(fixture.fieldByName("d")));
            JdiKit.expect("str", "jdi text", ((StringReference) instance.getValue(fixture.fieldByName("str"))).value());
        });
        scenario("set.statics", () -> {
            fixture.setValue(fixture.fieldByName("staticInt"), vm.mirrorOf(4321));
            JdiKit.expect("staticInt", vm.mirrorOf(4321), fixture.getValue(fixture.fieldByName("staticInt")));
        });
        scenario("set.array", () -> {
            ArrayReference ints = (ArrayReference) fixture.getValue(fixture.fieldByName("is"));
            ints.setValues(List.of(vm.mirrorOf(5), vm.mirrorOf(6), vm.mirrorOf(7), vm.mirrorOf(8)));
            JdiKit.expect("is", List.of(vm.mirrorOf(5), vm.mirrorOf(6), vm.mirrorOf(7), vm.mirrorOf(8)), ints.getValues());
            ArrayReference strs = (ArrayReference) fixture.getValue(fixture.fieldByName("strs"));
            strs.setValue(1, vm.mirrorOf("one"));
            JdiKit.expect("strs[1]", "one", ((StringReference) strs.getValue(1)).value());
        });
        scenario("array-type.new-instance", () -> {
            ArrayType type = (ArrayType) vm.classesByName("long[]").get(0);
            ArrayReference a = type.newInstance(3);
            JdiKit.expect("length", 3, a.length());
            JdiKit.expect("element", vm.mirrorOf(0L), a.getValue(2));
        });
        scenario("invoke.static-returns", () -> {
            JdiKit.expect("retI", vm.mirrorOf(42), callStatic("retI", vm.mirrorOf(41)));
            JdiKit.expect("retJ", vm.mirrorOf(11L), callStatic("retJ", vm.mirrorOf(10L)));
            JdiKit.expect("retD", vm.mirrorOf(3.0), callStatic("retD", vm.mirrorOf(1.5)));
            JdiKit.expect("retZ", vm.mirrorOf(false), callStatic("retZ", vm.mirrorOf(true)));
            JdiKit.expect("retString", "x7", ((StringReference) callStatic("retString", vm.mirrorOf("x"), vm.mirrorOf(7))).value());
            JdiKit.expect("retNull", null, callStatic("retNull"));
            JdiKit.expect("retVoid", vm.mirrorOfVoid(), callStatic("retVoid"));
            ArrayReference a = (ArrayReference) callStatic("retArray", vm.mirrorOf(3));
            JdiKit.expect("retArray", List.of(vm.mirrorOf(0), vm.mirrorOf(1), vm.mirrorOf(4)), a.getValues());
        });
        scenario("invoke.exception", () -> {
            try {
                callStatic("thrower", vm.mirrorOf(1));
                throw new AssertionError("no InvocationException");
            } catch (InvocationException e) {
                JdiKit.expect("exception type", "java.lang.IllegalArgumentException", e.exception().referenceType().name());
            }
        });
        scenario("invoke.virtual-nonvirtual", () -> {
            ObjectReference derived = (ObjectReference) fixture.getValue(fixture.fieldByName("derived"));
            ClassType base = (ClassType) vm.classesByName("InvokeFixture$Base").get(0);
            Method who = method(base, "who");
            JdiKit.expect("virtual", "Derived.who", ((StringReference) derived.invokeMethod(thread, who, List.of(), 0)).value());
            JdiKit.expect("nonvirtual", "Base.who", ((StringReference) derived.invokeMethod(thread, who, List.of(),
                    ObjectReference.INVOKE_NONVIRTUAL)).value());
        });
        scenario("invoke.new-instance", () -> {
            callStatic("retObject");  // loads Point
            ClassType point = (ClassType) vm.classesByName("InvokeFixture$Point").get(0);
            Method ctor = point.concreteMethodByName("<init>", "(II)V");
            ObjectReference p = point.newInstance(thread, ctor, List.of(vm.mirrorOf(8), vm.mirrorOf(9)), 0);
            JdiKit.expect("x", vm.mirrorOf(8), p.getValue(point.fieldByName("x")));
            JdiKit.expect("y", vm.mirrorOf(9), p.getValue(point.fieldByName("y")));
        });
        scenario("invoke.interface-static", () -> {
            InterfaceType greeter = (InterfaceType) vm.classesByName("InvokeFixture$Greeter").get(0);
            Value v = greeter.invokeMethod(thread, method(greeter, "hello"), List.of(vm.mirrorOf("jdi")), 0);
            JdiKit.expect("hello", "hello jdi", ((StringReference) v).value());
        });
        scenario("invoke.single-threaded", () -> {
            Value before = callStatic("spinsSeen");
            Value a = fixture.invokeMethod(thread, method(fixture, "spinsSeen"), List.of(),
                    ClassType.INVOKE_SINGLE_THREADED);
            Value b = fixture.invokeMethod(thread, method(fixture, "spinsSeen"), List.of(),
                    ClassType.INVOKE_SINGLE_THREADED);
            JdiKit.expect("the worker did not run", a, b);
            ThreadReference worker = null;
            for (ThreadReference t : vm.allThreads()) if (t.name().equals("worker")) worker = t;
            JdiKit.expect("worker suspend count", 1, worker.suspendCount());
            JdiKit.expect("main suspend count", 1, thread.suspendCount());
        });
    }
}
