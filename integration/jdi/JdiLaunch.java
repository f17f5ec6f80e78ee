// Drives a debuggee through JDI's launching connector, the way IDEs do:
// the connector starts `<home>/bin/java -agentlib:jdwp=...`, so pointing `home` at
// an overlay JDK whose lib/libjdwp.so is ours tests our agent end to end.
//
// Usage: JdiLaunch <home> <classpath> <mainClass> <line> <localName>
// Prints "BREAKPOINT line=N", "LOCAL name=value", "EXIT code=N" and
// "RESULT ok" on success; exits non-zero with "RESULT fail: ..." otherwise.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.Value;
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
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

public class JdiLaunch {
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: JdiLaunch <home> <classpath> <mainClass> <line> <localName>");
            System.exit(2);
        }
        String home = args[0];
        String classpath = args[1];
        String mainClass = args[2];
        int line = Integer.parseInt(args[3]);
        String localName = args[4];
        try {
            run(home, classpath, mainClass, line, localName);
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    static LaunchingConnector findLauncher() {
        for (LaunchingConnector c : Bootstrap.virtualMachineManager().launchingConnectors()) {
            if (c.name().equals("com.sun.jdi.CommandLineLaunch")) {
                return c;
            }
        }
        throw new IllegalStateException("no com.sun.jdi.CommandLineLaunch connector");
    }

    // The debuggee's output must be drained or it may block on a full pipe.
    static Thread drain(InputStream in, String prefix) {
        Thread t = new Thread(() -> {
            try {
                byte[] buf = new byte[4096];
                StringBuilder pending = new StringBuilder();
                int n;
                while ((n = in.read(buf)) > 0) {
                    pending.append(new String(buf, 0, n));
                    int nl;
                    while ((nl = pending.indexOf("\n")) >= 0) {
                        System.out.println(prefix + pending.substring(0, nl));
                        pending.delete(0, nl + 1);
                    }
                }
                if (pending.length() > 0) {
                    System.out.println(prefix + pending);
                }
            } catch (Exception ignored) {
                // The stream closes when the debuggee exits.
            }
        }, "drain-" + prefix);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void run(String home, String classpath, String mainClass, int line, String localName)
            throws Exception {
        LaunchingConnector launcher = findLauncher();
        Map<String, Connector.Argument> arguments = launcher.defaultArguments();
        arguments.get("home").setValue(home);
        arguments.get("options").setValue("-cp " + classpath);
        arguments.get("main").setValue(mainClass);
        arguments.get("suspend").setValue("true");
        VirtualMachine vm = launcher.launch(arguments);
        Process process = vm.process();
        Thread out = drain(process.getInputStream(), "debuggee: ");
        Thread err = drain(process.getErrorStream(), "debuggee-err: ");
        System.out.println("VM " + vm.name() + " " + vm.version());

        boolean sawStart = false;
        boolean sawBreakpoint = false;
        boolean done = false;
        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter(mainClass);
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        while (!done) {
            EventSet set = JdiKit.next(vm, 60_000);
            for (Event event : set) {
                if (event instanceof VMStartEvent) {
                    sawStart = true;
                } else if (event instanceof ClassPrepareEvent) {
                    ReferenceType type = ((ClassPrepareEvent) event).referenceType();
                    List<Location> locations = type.locationsOfLine(line);
                    if (locations.isEmpty()) {
                        throw new IllegalStateException("no code at " + mainClass + ":" + line);
                    }
                    BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(locations.get(0));
                    bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    bp.enable();
                } else if (event instanceof BreakpointEvent) {
                    BreakpointEvent hit = (BreakpointEvent) event;
                    sawBreakpoint = true;
                    System.out.println("BREAKPOINT line=" + hit.location().lineNumber()
                            + " method=" + hit.location().method().name()
                            + " thread=" + hit.thread().name());
                    StackFrame frame = hit.thread().frame(0);
                    LocalVariable local = frame.visibleVariableByName(localName);
                    if (local == null) {
                        throw new IllegalStateException("no visible local " + localName);
                    }
                    Value value = frame.getValue(local);
                    System.out.println("LOCAL " + localName + "=" + value);
                } else if (event instanceof VMDeathEvent) {
                    System.out.println("VMDEATH");
                } else if (event instanceof VMDisconnectEvent) {
                    done = true;
                }
            }
            if (!done) {
                try {
                    set.resume();
                } catch (VMDisconnectedException e) {
                    // The VM may go away right after VMDeath; the queue reports it next.
                }
            }
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("debuggee did not exit");
        }
        out.join(5000);
        err.join(5000);
        System.out.println("EXIT code=" + process.exitValue());
        if (!sawStart) {
            throw new IllegalStateException("no VMStart event");
        }
        if (!sawBreakpoint) {
            throw new IllegalStateException("breakpoint never hit");
        }
    }
}
