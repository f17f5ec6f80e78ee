// What every JDI driver needs: attach through the socket connector, wait for the
// next event set with a timeout, and checks whose failures say what was expected
// and what came. The drivers under jdi/ and eclipse/ use these and define none of
// their own; the manager is a parameter so that the Eclipse wrappers can pass
// Eclipse's (its socket connector has the same name and arguments).
//
// A failed check throws AssertionError; each driver's main catches it and prints
// its own verdict line. report() prints the "CHECK ..." lines the Python tests read.

import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

final class JdiKit {
    private JdiKit() {}

    // ---- attach

    /** The manager's connector named com.sun.jdi.SocketAttach. */
    static AttachingConnector socketConnector(VirtualMachineManager vmm) {
        for (AttachingConnector c : vmm.attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) {
                return c;
            }
        }
        throw new IllegalStateException("no com.sun.jdi.SocketAttach connector in " + vmm.getClass().getName());
    }

    /** Attaches to a debuggee listening on 127.0.0.1:{@code port}. */
    static VirtualMachine attach(VirtualMachineManager vmm, int port) throws Exception {
        return attach(socketConnector(vmm), port, 0);
    }

    /** The same through a given connector; {@code timeoutMs} > 0 bounds the connect where the connector has a timeout. */
    static VirtualMachine attach(AttachingConnector connector, int port, long timeoutMs) throws Exception {
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(Integer.toString(port));
        if (timeoutMs > 0 && arguments.containsKey("timeout")) {
            arguments.get("timeout").setValue(Long.toString(timeoutMs));
        }
        return connector.attach(arguments);
    }

    // ---- events

    static boolean ends(Event e) {
        return e instanceof VMDeathEvent || e instanceof VMDisconnectEvent;
    }

    /** The next event set, whatever it holds; none within the timeout fails. */
    static EventSet next(VirtualMachine vm, long timeoutMs) throws InterruptedException {
        return next(vm, timeoutMs, "");
    }

    /** The same; {@code context} ends the failure's message (" after set 12"). */
    static EventSet next(VirtualMachine vm, long timeoutMs, String context) throws InterruptedException {
        EventSet set = vm.eventQueue().remove(timeoutMs);
        if (set == null) {
            throw new AssertionError("no event within " + timeoutMs + " ms" + context);
        }
        return set;
    }

    /** The next event set; the VM's death or disconnection fails too. */
    static EventSet nextAlive(VirtualMachine vm, long timeoutMs) throws InterruptedException {
        EventSet set = next(vm, timeoutMs);
        for (Event e : set) {
            if (ends(e)) {
                throw new AssertionError("the VM ended early: " + e);
            }
        }
        return set;
    }

    /**
     * The next event set with an event {@code wanted} accepts, not resumed; the
     * sets before it are resumed. The timeout bounds the whole wait; the VM's end
     * fails unless it is what is wanted.
     */
    static EventSet awaitSet(VirtualMachine vm, Predicate<Event> wanted, long timeoutMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            long left = deadline - System.currentTimeMillis();
            EventSet set = left > 0 ? vm.eventQueue().remove(left) : null;
            if (set == null) {
                throw new AssertionError("no awaited event within " + timeoutMs + " ms");
            }
            for (Event e : set) {
                if (wanted.test(e)) {
                    return set;
                }
            }
            for (Event e : set) {
                if (ends(e)) {
                    throw new AssertionError("the VM ended early: " + e);
                }
            }
            set.resume();
        }
    }

    /** The next event of {@code kind} (its set not resumed); the sets before it are resumed. */
    static <E extends Event> E await(VirtualMachine vm, Class<E> kind, long timeoutMs) throws InterruptedException {
        for (Event e : awaitSet(vm, kind::isInstance, timeoutMs)) {
            if (kind.isInstance(e)) {
                return kind.cast(e);
            }
        }
        throw new AssertionError("unreachable");
    }

    // ---- checks

    /** On: every check that passes prints "CHECK <what>" (ObjectsJdi's test counts them). */
    static boolean reportPassedChecks = false;

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
        if (reportPassedChecks) {
            report(what);
        }
    }

    /** A check named by the command it covers; a failure reads "<command>: <detail>". */
    static void check(String command, boolean ok, String detail) {
        if (!ok) {
            throw new AssertionError(command + ": " + detail);
        }
    }

    /** Equal values; a failure shows both, strings with their control and non-ASCII characters escaped. */
    static void expect(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(what + ": expected <" + show(expected) + "> but was <" + show(actual) + ">");
        }
    }

    /** The same texts (String.valueOf of each): 3 and 3L are equal here. */
    static void expectText(String what, Object expected, Object actual) {
        check(String.valueOf(expected).equals(String.valueOf(actual)), what + ": expected " + expected + ", got " + actual);
    }

    static String show(Object o) {
        if (o instanceof String) {
            StringBuilder b = new StringBuilder();
            for (char c : ((String) o).toCharArray()) {
                if (c < 0x20 || c > 0x7e) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.toString();
        }
        return String.valueOf(o);
    }

    /** Prints "CHECK <line>" for the Python side to compare. */
    static void report(String line) {
        System.out.println("CHECK " + line);
    }

    static void report(String name, Object value) {
        report(name + " " + value);
    }
}
