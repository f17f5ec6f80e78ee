// Concurrency stress through JDI: threads hit one breakpoint concurrently
// (one SUSPEND_ALL and one SUSPEND_EVENT_THREAD request on the same line) while threads
// start and end; at every stop the driver reads every suspended thread's frames
// and the hit frame's locals, and every few stops it suspends and resumes the
// whole VM. The run must finish with every hit reported and no hang.
// With "bare": one SUSPEND_ALL request alone, each stop resumed at once (a
// debugger running from hit to hit), so that the threads starting meanwhile
// are suspended and resumed by every stop, with no other command in between.
//
// Usage: JdiStress <home> <classpath> <line> <workers> <rounds> [bare]
// Prints "HITS n", "EXIT code=N" and "RESULT ok" on success.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.Location;
import com.sun.jdi.ObjectCollectedException;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

public class JdiStress {
    public static void main(String[] args) throws Exception {
        if (args.length != 5 && !(args.length == 6 && args[5].equals("bare"))) {
            System.err.println("usage: JdiStress <home> <classpath> <line> <workers> <rounds> [bare]");
            System.exit(2);
        }
        try {
            run(args[0], args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                args.length == 6);
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    static void drain(InputStream in, String prefix) {
        Thread t = new Thread(() -> {
            try {
                java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(in));
                String line;
                while ((line = r.readLine()) != null) System.out.println(prefix + line);
            } catch (java.io.IOException e) {
                // the debuggee is gone
            }
        });
        t.setDaemon(true);
        t.start();
    }

    static void run(String home, String classpath, int line, int workers, int rounds, boolean bare)
            throws Exception {
        LaunchingConnector launcher = null;
        for (LaunchingConnector c : Bootstrap.virtualMachineManager().launchingConnectors())
            if (c.name().equals("com.sun.jdi.CommandLineLaunch")) launcher = c;
        Map<String, Connector.Argument> a = launcher.defaultArguments();
        a.get("home").setValue(home);
        a.get("options").setValue("-cp " + classpath);
        a.get("main").setValue("ConcurrentHits " + workers + " " + rounds);
        VirtualMachine vm = launcher.launch(a);
        Process process = vm.process();
        drain(process.getInputStream(), "debuggee: ");
        drain(process.getErrorStream(), "debuggee-err: ");

        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter("ConcurrentHits");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();

        int expected = workers * rounds;
        int hits = 0;  // event sets with breakpoint events: one per execution of the line
        int breakpointEvents = 0;
        int stops = 0;
        boolean dead = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
        // No vm.resume() here: the launch's VMStart set is the first in the queue
        // and resuming it starts the VM. A second resume would undo the
        // ClassPrepare's SUSPEND_ALL and let the workers run before the breakpoints exist.
        while (!dead) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) throw new IllegalStateException("timed out after " + hits + " of " + expected + " hits");
            EventSet set = vm.eventQueue().remove(left);
            if (set == null) throw new IllegalStateException("no event within the deadline after " + hits + " hits");
            int inSet = 0;
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    ReferenceType type = ((ClassPrepareEvent) e).referenceType();
                    List<Location> at = type.locationsOfLine(line);
                    if (at.isEmpty()) throw new IllegalStateException("no code at line " + line);
                    // Two requests on one location: one suspends all, one the event thread.
                    BreakpointRequest all = vm.eventRequestManager().createBreakpointRequest(at.get(0));
                    all.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                    all.enable();
                    if (bare) continue;
                    BreakpointRequest one = vm.eventRequestManager().createBreakpointRequest(at.get(0));
                    one.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    one.enable();
                } else if (e instanceof BreakpointEvent) {
                    breakpointEvents++;
                    if (inSet++ > 0) continue;  // the second request's event in the same set
                    hits++;
                    if (bare) continue;
                    BreakpointEvent bp = (BreakpointEvent) e;
                    if (bp.location().lineNumber() != line)
                        throw new IllegalStateException("stopped at line " + bp.location().lineNumber());
                    StackFrame frame = bp.thread().frame(0);
                    int worker = ((IntegerValue) frame.getValue(frame.location().method().variablesByName("worker").get(0))).value();
                    if (worker < 0 || worker >= workers) throw new IllegalStateException("worker=" + worker);
                    for (ThreadReference t : vm.allThreads()) {
                        try {
                            if (t.isSuspended()) t.frames();
                        } catch (IncompatibleThreadStateException | ObjectCollectedException ex) {
                            // the thread ended or is not suspended any more
                        }
                    }
                    if (++stops % 5 == 0) {
                        vm.suspend();
                        vm.resume();
                    }
                } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    dead = true;
                }
            }
            if (!dead) {
                try {
                    set.resume();
                } catch (VMDisconnectedException ex) {
                    dead = true;
                }
            }
        }
        System.out.println("HITS " + hits);
        System.out.println("BREAKPOINT_EVENTS " + breakpointEvents);
        if (hits != expected) throw new IllegalStateException("expected " + expected + " hits, got " + hits);
        // Both requests on the location are reported together, in the same set.
        int perHit = bare ? 1 : 2;
        if (breakpointEvents != perHit * expected)
            throw new IllegalStateException(
                "expected " + perHit * expected + " breakpoint events, got " + breakpointEvents);
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new IllegalStateException("debuggee did not exit");
        System.out.println("EXIT code=" + process.exitValue());
        if (process.exitValue() != 0) throw new IllegalStateException("debuggee exit code " + process.exitValue());
    }
}
