// The stepping table of test_stepping.py through com.sun.jdi: for each row,
// stop at the row's from-line with a breakpoint, issue the row's StepRequest
// (with the class exclusions IDEs add: java.*, jdk.*, sun.*) and print where
// the step landed. Run by the JDK's JDI (main here) and by Eclipse's
// (eclipse/SteppingEclipse.java passes its VirtualMachineManager to run()).
//
// Usage: SteppingJdi <debuggeePort> <row>...
//   row: id,fromLine,depth(into|over|out),size(line|min),count(0: none),alsoBreakAtLine(0: none)
// The debuggee is Stepping (server=y, suspend=y) running one scenario per row,
// in row order. Output, one line per row:
//   LANDED <id> <class>.<method>:<line> events=<kinds of the event set, sorted>
//   RESULT ok | RESULT fail: <reason>
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

public final class SteppingJdi {
    static final long EVENT_TIMEOUT_MS = 60_000;

    public static void main(String[] args) {
        System.exit(run(com.sun.jdi.Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        VirtualMachine vm = null;
        try {
            vm = JdiKit.attach(vmm, Integer.parseInt(args[0]));
            configure.accept(vm);
            EventRequestManager erm = vm.eventRequestManager();
            ClassPrepareRequest prepare = erm.createClassPrepareRequest();
            prepare.addClassFilter("Stepping");
            prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            prepare.enable();
            ReferenceType stepping = null;
            EventSet pending = null;  // the suspended set to resume to go on
            while (stepping == null) {
                EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
                for (Event e : set) {
                    if (e instanceof ClassPrepareEvent) {
                        stepping = ((ClassPrepareEvent) e).referenceType();
                    }
                }
                if (stepping == null) {
                    set.resume();
                } else {
                    pending = set;
                }
            }
            erm.deleteEventRequest(prepare);
            for (int i = 1; i < args.length; i++) {
                pending = row(vm, stepping, args[i].split(","), pending);
            }
            // Dispose resumes the VM, which then runs to its end.
            try {
                vm.dispose();
            } catch (com.sun.jdi.VMDisconnectedException e) {
                // already ended
            }
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            if (vm != null) {
                try {
                    vm.dispose();
                } catch (Throwable ignored) {
                    // already gone
                }
            }
            return 1;
        }
    }

    static BreakpointRequest breakAt(VirtualMachine vm, ReferenceType type, int line) throws Exception {
        List<Location> at = type.locationsOfLine(line);
        if (at.isEmpty()) {
            throw new IllegalStateException("no code at Stepping:" + line);
        }
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at.get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        return bp;
    }

    /** Runs one row from the suspended set `pending`; returns the suspended set the step ended in. */
    static EventSet row(VirtualMachine vm, ReferenceType stepping, String[] row, EventSet pending) throws Exception {
        String id = row[0];
        int fromLine = Integer.parseInt(row[1]);
        int depth = row[2].equals("into") ? StepRequest.STEP_INTO
                : row[2].equals("over") ? StepRequest.STEP_OVER : StepRequest.STEP_OUT;
        int size = row[3].equals("min") ? StepRequest.STEP_MIN : StepRequest.STEP_LINE;
        int count = Integer.parseInt(row[4]);
        int alsoBreakAt = Integer.parseInt(row[5]);
        EventRequestManager erm = vm.eventRequestManager();

        BreakpointRequest from = breakAt(vm, stepping, fromLine);
        pending.resume();
        ThreadReference thread = null;
        while (thread == null) {
            EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
            for (Event e : set) {
                if (e instanceof BreakpointEvent && e.request() == from) {
                    thread = ((BreakpointEvent) e).thread();
                    pending = set;
                }
            }
            if (thread == null) {
                set.resume();
            }
        }
        erm.deleteEventRequest(from);

        BreakpointRequest also = alsoBreakAt > 0 ? breakAt(vm, stepping, alsoBreakAt) : null;
        StepRequest step = erm.createStepRequest(thread, size, depth);
        step.addClassExclusionFilter("java.*");
        step.addClassExclusionFilter("jdk.*");
        step.addClassExclusionFilter("sun.*");
        if (count > 0) {
            step.addCountFilter(count);
        }
        step.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        step.enable();
        pending.resume();
        while (true) {
            EventSet set = JdiKit.nextAlive(vm, EVENT_TIMEOUT_MS);
            StepEvent landed = null;
            List<String> kinds = new ArrayList<>();
            for (Event e : set) {
                String kind = e.getClass().getSimpleName().replace("EventImpl", "").replace("Impl", "");
                kinds.add(e instanceof StepEvent ? "Step" : e instanceof BreakpointEvent ? "Breakpoint" : kind);
                if (e instanceof StepEvent && e.request() == step) {
                    landed = (StepEvent) e;
                }
            }
            if (landed == null) {
                System.out.println("NOTE " + id + " event set without the step: " + kinds);
                set.resume();
                continue;
            }
            kinds.sort(null);
            Location at = landed.location();
            String line;
            try {
                line = String.valueOf(at.lineNumber());
            } catch (com.sun.jdi.InternalException e) {
                // An agent that answers Method.LineTable with an error (not an empty table).
                line = "error(" + e.errorCode() + ")";
            }
            System.out.println("LANDED " + id + " " + at.declaringType().name() + "." + at.method().name() + ":"
                    + line + " events=" + String.join("+", kinds));
            erm.deleteEventRequest(step);
            if (also != null) {
                erm.deleteEventRequest(also);
            }
            return set;
        }
    }
}
