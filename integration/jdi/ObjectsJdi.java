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
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

public class ObjectsJdi {
    static final long EVENT_TIMEOUT_MS = 60_000;
    static VirtualMachine vm;

    public static void main(String[] args) throws Exception {
        try {
            run(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
        System.out.println("CHECK " + what);
    }

    static void checkEq(Object expected, Object actual, String what) {
        check(String.valueOf(expected).equals(String.valueOf(actual)), what + ": expected " + expected + ", got " + actual);
    }

    // The next event set, or an error after the timeout; VM death ends the test.
    static EventSet next() throws InterruptedException {
        EventSet set = vm.eventQueue().remove(EVENT_TIMEOUT_MS);
        if (set == null) {
            throw new AssertionError("no event within " + EVENT_TIMEOUT_MS + " ms");
        }
        for (Event e : set) {
            if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                throw new AssertionError("VM ended early: " + e);
            }
        }
        return set;
    }

    // Resumes until a breakpoint event comes; returns its thread (VM suspended).
    static ThreadReference resumeToBreakpoint() throws InterruptedException {
        vm.resume();
        while (true) {
            EventSet set = next();
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
        vm = SocketAttach.attach(Bootstrap.virtualMachineManager(), port);

        // suspend=y: the VM waits at VMStart. Resuming that event set (not the VM
        // a second time) keeps the suspend counts exact, so a ClassPrepare that
        // arrives meanwhile stays suspended.
        EventSet start = next();
        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter("ObjectsFixture");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        ReferenceType fixture = null;
        start.resume();
        while (fixture == null) {
            EventSet set = next();
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
        checkEq("main", main.name(), "breakpoint thread");

        checkEq("boolean:true,boolean:false,boolean:true", primitives(fixture, "booleans"), "boolean[]");
        checkEq("byte:-128,byte:0,byte:127,byte:-1", primitives(fixture, "bytes"), "byte[]");
        checkEq("char:a,char:\u00e9,char:\u20ac,char:\uffff,char:\0", primitives(fixture, "chars"), "char[]");
        checkEq("short:-32768,short:0,short:32767,short:-2", primitives(fixture, "shorts"), "short[]");
        checkEq("int:-2147483648,int:-1,int:0,int:1,int:2147483647", primitives(fixture, "ints"), "int[]");
        checkEq("long:-9223372036854775808,long:-1,long:0,long:1,long:9223372036854775807",
                primitives(fixture, "longs"), "long[]");
        checkEq("float:-1.5,float:0.0,float:-0.0,float:3.4028235E38,float:Infinity,float:NaN",
                primitives(fixture, "floats"), "float[]");
        checkEq("double:-1.5,double:0.0,double:-0.0,double:4.9E-324,double:-Infinity,double:NaN",
                primitives(fixture, "doubles"), "double[]");
        checkEq(0, ((ArrayReference) field(fixture, "empty")).length(), "empty length");
        checkEq(0, ((ArrayReference) field(fixture, "empty")).getValues().size(), "empty values");

        // Over 1 MiB: our agent streams this reply while it reads the array.
        List<Value> medium = ((ArrayReference) field(fixture, "mediumLongs")).getValues();
        checkEq(200_000, medium.size(), "long[200000] size");
        for (int i : new int[] {0, 1, 99_999, 199_999}) {
            checkEq(i * 7L - 3, ((LongValue) medium.get(i)).value(), "long[200000] element " + i);
        }

        ArrayReference ints = (ArrayReference) field(fixture, "ints");
        checkEq("[int:0, int:1]", describe(ints.getValues(2, 2)), "int[] region");
        checkEq("[int:1, int:2147483647]", describe(ints.getValues(3, -1)), "int[] region to the end");

        List<Value> strings = ((ArrayReference) field(fixture, "strings")).getValues();
        checkEq("alpha", ((StringReference) strings.get(0)).value(), "String[] 0");
        check(strings.get(1) == null, "String[] 1 is null");
        checkEq("gamma", ((StringReference) strings.get(2)).value(), "String[] 2");

        List<Value> nested = ((ArrayReference) field(fixture, "nested")).getValues();
        checkEq("[int:1, int:2]", describe(((ArrayReference) nested.get(0)).getValues()), "int[][] 0");
        check(nested.get(1) == null, "int[][] 1 is null");
        checkEq(0, ((ArrayReference) nested.get(2)).length(), "int[][] 2 length");

        // Each object tag kind maps to its JDI mirror interface.
        List<Value> mixed = ((ArrayReference) field(fixture, "mixed")).getValues();
        String[] kinds = {"StringReference", "ThreadReference", "ThreadGroupReference", "ClassLoaderReference",
                          "ClassObjectReference", "ArrayReference", "ObjectReference", "null"};
        for (int i = 0; i < kinds.length; i++) {
            checkEq(kinds[i], kindOf(mixed.get(i)), "mixed[" + i + "] kind");
        }
        checkEq("text", ((StringReference) mixed.get(0)).value(), "mixed[0] value");
        checkEq("main", ((ThreadReference) mixed.get(1)).name(), "mixed[1] thread name");
        checkEq("java.lang.String",
                ((com.sun.jdi.ClassObjectReference) mixed.get(4)).reflectedType().name(), "mixed[4] reflected type");

        // An unpaired surrogate arrives as the 3-byte sequence of its unit, which
        // JDI's UTF-8 decoder turns into U+FFFD (byte-exact checks: test_objects.py).
        checkEq("a\0b\u00e9\u20ac\ud83d\ude00x\ufffdy\ufffdz\ud83d\ude00",
                ((StringReference) field(fixture, "special")).value(), "special string");

        ObjectReference lock = (ObjectReference) field(fixture, "lock");
        checkEq("main", lock.owningThread().name(), "lock owner");
        checkEq(2, lock.entryCount(), "lock entry count");
        List<String> waiters = new ArrayList<>();
        for (ThreadReference t : lock.waitingThreads()) {
            waiters.add(t.name());
        }
        checkEq("[objects-waiter]", waiters, "lock waiters");

        // Collection control: pin the victim, let the fixture drop it and GC.
        ObjectReference victim = (ObjectReference) field(fixture, "victim");
        victim.disableCollection();
        resumeToBreakpoint();
        check(!victim.isCollected(), "pinned victim not collected after System.gc()");
        checkEq("[int:7, int:8, int:9]", describe(((ArrayReference) victim).getValues()),
                "pinned victim still answers");
        victim.enableCollection();
        resumeToBreakpoint();
        check(victim.isCollected(), "victim collected after enableCollection + System.gc()");
        try {
            ((ArrayReference) victim).getValues();
            check(false, "getValues of a collected array throws");
        } catch (ObjectCollectedException expected) {
            check(true, "getValues of a collected array throws ObjectCollectedException");
        }
        vm.resume();
        // The fixture prints "done" and exits; the VM's end is the last event.
        while (true) {
            EventSet set = vm.eventQueue().remove(EVENT_TIMEOUT_MS);
            if (set == null) {
                throw new AssertionError("VM did not end");
            }
            boolean end = false;
            for (Event e : set) {
                end |= e instanceof VMDeathEvent || e instanceof VMDisconnectEvent;
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
