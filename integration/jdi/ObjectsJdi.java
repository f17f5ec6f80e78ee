// Objects through com.sun.jdi against a running ObjectsFixture (server=y,suspend=y):
// array values of every element type, strings, the monitor of ObjectsFixture.lock
// (owned twice by main, one waiter), and collection control:
// disableCollection keeps an object alive across System.gc(), enableCollection
// lets it go, then isCollected() is true and the mirror answers ObjectCollectedException.
//
// Usage: ObjectsJdi <port> <pauseLine>
// Prints one "CHECK <what>" line per passed check and "RESULT ok" at the end;
// "RESULT fail: ..." and exit code 1 otherwise.
import com.sun.jdi.ArrayReference;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Field;
import com.sun.jdi.LongValue;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.util.ArrayList;
import java.util.List;

public class ObjectsJdi {
    static final long EVENT_TIMEOUT_MS = 60_000;
    static VirtualMachine vm;

    public static void main(String[] args) throws Exception {
        JdiKit.reportPassedChecks = true; // every passed check prints CHECK <what>
        try {
            run(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    // Resumes until a breakpoint event comes; returns its thread (VM suspended).
    static ThreadReference resumeToBreakpoint() throws InterruptedException {
        vm.resume();
        while (true) {
            EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    return ((BreakpointEvent) e).thread();
                }
            }
            set.resume();
        }
    }

    static Value field(ReferenceType type, String name) {
        Field f = type.fieldByName(name);
        if (f == null) {
            throw new AssertionError("no field " + name);
        }
        return type.getValue(f);
    }

    static String primitives(ReferenceType type, String name) {
        List<String> out = new ArrayList<>();
        for (Value v : ((ArrayReference) field(type, name)).getValues()) {
            out.add(v.type().name() + ":" + v);
        }
        return String.join(",", out);
    }

    static void run(int port, int pauseLine) throws Exception {
        vm = JdiKit.attach(Bootstrap.virtualMachineManager(), port);

        // suspend=y: the VM waits at VMStart. Resuming that event set (not the VM
        // a second time) keeps the suspend counts exact, so a ClassPrepare that
        // arrives meanwhile stays suspended.
        EventSet start = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter("ObjectsFixture");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        ReferenceType fixture = null;
        start.resume();
        while (fixture == null) {
            EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    fixture = ((ClassPrepareEvent) e).referenceType();
                }
            }
            if (fixture == null) {
                set.resume();
            }
        }
        prepare.disable();
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(
                fixture.locationsOfLine(pauseLine).get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();

        // Stop 1: inside synchronized (lock) twice, the waiter in lock.wait().
        ThreadReference main = resumeToBreakpoint();
        JdiKit.expectText("breakpoint thread", "main", main.name());

        JdiKit.expectText("boolean[]", "boolean:true,boolean:false,boolean:true", primitives(fixture, "booleans"));
        JdiKit.expectText("byte[]", "byte:-128,byte:0,byte:127,byte:-1", primitives(fixture, "bytes"));
        JdiKit.expectText("char[]", "char:a,char:\u00e9,char:\u20ac,char:\uffff,char:\0", primitives(fixture, "chars"));
        JdiKit.expectText("short[]", "short:-32768,short:0,short:32767,short:-2", primitives(fixture, "shorts"));
        JdiKit.expectText("int[]", "int:-2147483648,int:-1,int:0,int:1,int:2147483647", primitives(fixture, "ints"));
        JdiKit.expectText("long[]", "long:-9223372036854775808,long:-1,long:0,long:1,long:9223372036854775807",
                primitives(fixture, "longs"));
        JdiKit.expectText("float[]", "float:-1.5,float:0.0,float:-0.0,float:3.4028235E38,float:Infinity,float:NaN",
                primitives(fixture, "floats"));
        JdiKit.expectText("double[]", "double:-1.5,double:0.0,double:-0.0,double:4.9E-324,double:-Infinity,double:NaN",
                primitives(fixture, "doubles"));
        JdiKit.expectText("empty length", 0, ((ArrayReference) field(fixture, "empty")).length());
        JdiKit.expectText("empty values", 0, ((ArrayReference) field(fixture, "empty")).getValues().size());

        // Over 1 MiB: our agent streams this reply while it reads the array.
        List<Value> medium = ((ArrayReference) field(fixture, "mediumLongs")).getValues();
        JdiKit.expectText("long[200000] size", 200_000, medium.size());
        for (int i : new int[] {0, 1, 99_999, 199_999}) {
            JdiKit.expectText("long[200000] element " + i, i * 7L - 3, ((LongValue) medium.get(i)).value());
        }

        ArrayReference ints = (ArrayReference) field(fixture, "ints");
        JdiKit.expectText("int[] region", "[int:0, int:1]", describe(ints.getValues(2, 2)));
        JdiKit.expectText("int[] region to the end", "[int:1, int:2147483647]", describe(ints.getValues(3, -1)));

        List<Value> strings = ((ArrayReference) field(fixture, "strings")).getValues();
        JdiKit.expectText("String[] 0", "alpha", ((StringReference) strings.get(0)).value());
        JdiKit.check(strings.get(1) == null, "String[] 1 is null");
        JdiKit.expectText("String[] 2", "gamma", ((StringReference) strings.get(2)).value());

        List<Value> nested = ((ArrayReference) field(fixture, "nested")).getValues();
        JdiKit.expectText("int[][] 0", "[int:1, int:2]", describe(((ArrayReference) nested.get(0)).getValues()));
        JdiKit.check(nested.get(1) == null, "int[][] 1 is null");
        JdiKit.expectText("int[][] 2 length", 0, ((ArrayReference) nested.get(2)).length());

        // Each object tag kind maps to its JDI mirror interface.
        List<Value> mixed = ((ArrayReference) field(fixture, "mixed")).getValues();
        String[] kinds = {"StringReference", "ThreadReference", "ThreadGroupReference", "ClassLoaderReference",
                          "ClassObjectReference", "ArrayReference", "ObjectReference", "null"};
        for (int i = 0; i < kinds.length; i++) {
            JdiKit.expectText("mixed[" + i + "] kind", kinds[i], kindOf(mixed.get(i)));
        }
        JdiKit.expectText("mixed[0] value", "text", ((StringReference) mixed.get(0)).value());
        JdiKit.expectText("mixed[1] thread name", "main", ((ThreadReference) mixed.get(1)).name());
        JdiKit.expectText("mixed[4] reflected type", "java.lang.String",
                ((com.sun.jdi.ClassObjectReference) mixed.get(4)).reflectedType().name());

        // An unpaired surrogate arrives as the 3-byte sequence of its unit, which
        // JDI's UTF-8 decoder turns into U+FFFD (byte-exact checks: test_objects.py).
        JdiKit.expectText("special string", "a\0b\u00e9\u20ac\ud83d\ude00x\ufffdy\ufffdz\ud83d\ude00",
                ((StringReference) field(fixture, "special")).value());

        ObjectReference lock = (ObjectReference) field(fixture, "lock");
        JdiKit.expectText("lock owner", "main", lock.owningThread().name());
        JdiKit.expectText("lock entry count", 2, lock.entryCount());
        List<String> waiters = new ArrayList<>();
        for (ThreadReference t : lock.waitingThreads()) {
            waiters.add(t.name());
        }
        JdiKit.expectText("lock waiters", "[objects-waiter]", waiters);

        // Collection control: pin the victim, let the fixture drop it and GC.
        ObjectReference victim = (ObjectReference) field(fixture, "victim");
        victim.disableCollection();
        resumeToBreakpoint();
        JdiKit.check(!victim.isCollected(), "pinned victim not collected after System.gc()");
        JdiKit.expectText("pinned victim still answers", "[int:7, int:8, int:9]",
                describe(((ArrayReference) victim).getValues()));
        victim.enableCollection();
        resumeToBreakpoint();
        JdiKit.check(victim.isCollected(), "victim collected after enableCollection + System.gc()");
        try {
            ((ArrayReference) victim).getValues();
            JdiKit.check(false, "getValues of a collected array throws");
        } catch (ObjectCollectedException expected) {
            JdiKit.check(true, "getValues of a collected array throws ObjectCollectedException");
        }
        vm.resume();
        // The fixture prints "done" and exits; the VM's end is the last event.
        while (true) {
            EventSet set = JdiKit.next(vm, EVENT_TIMEOUT_MS, ": the VM did not end");
            boolean end = false;
            for (Event e : set) {
                end |= JdiKit.ends(e);
            }
            if (end) {
                break;
            }
            set.resume();
        }
    }

    static String describe(List<Value> values) {
        List<String> out = new ArrayList<>();
        for (Value v : values) {
            out.add(v.type().name() + ":" + v);
        }
        return out.toString();
    }

    static String kindOf(Value v) {
        if (v == null) {
            return "null";
        }
        for (Class<?> k : new Class<?>[] {StringReference.class, ThreadReference.class,
                com.sun.jdi.ThreadGroupReference.class, com.sun.jdi.ClassLoaderReference.class,
                com.sun.jdi.ClassObjectReference.class, ArrayReference.class}) {
            if (k.isInstance(v)) {
                return k.getSimpleName();
            }
        }
        return "ObjectReference";
    }
}
