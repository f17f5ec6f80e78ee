// HotSwap through com.sun.jdi, as IDEs do it: VirtualMachine.redefineClasses
// with class files compiled by the test, its failures (a method added, a field
// added, another class's name, bytes that are no class file), and a breakpoint
// and steps in the redefined method afterwards (on its new lines).
// Written once, run by the JDK's JDI (main() here) and by Eclipse's
// (eclipse/RedefineEclipse.java).
//
// Usage: RedefineJdi <port> <RedefineTarget.java> <changed.class> <added-method.class>
//                    <added-field.class> <other-name.class> <garbage file> <new first line of greet>
//                    <class file of an unknown version>
// Output, one line each:
//   SCENARIO <name> PASS | FAIL <detail>
//   REDEFINE <case> <exception class>      (what each failing redefinition threw)
//   RESULT ok | RESULT fail: <reason>
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Location;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.StepRequest;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class RedefineJdi {
    final Map<String, Integer> lines = new HashMap<>();
    VirtualMachine vm;
    String[] args;
    ReferenceType target;
    BreakpointRequest greetBp;
    int greetHits;
    int newFirst;
    int stepsAfterRedefine;

    public static void main(String[] args) {
        System.exit(run(Bootstrap.virtualMachineManager(), args, vm -> { }));
    }

    public static int run(VirtualMachineManager vmm, String[] args, Consumer<VirtualMachine> configure) {
        RedefineJdi d = new RedefineJdi();
        d.args = args;
        try {
            d.newFirst = Integer.parseInt(args[7]);
            Pattern p = Pattern.compile("// @([\\w-]+)");
            List<String> all = Files.readAllLines(Paths.get(args[1]));
            for (int i = 0; i < all.size(); i++) {
                Matcher m = p.matcher(all.get(i));
                if (m.find()) d.lines.put(m.group(1), i + 1);
            }
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

    void attach(VirtualMachineManager vmm, int port, Consumer<VirtualMachine> configure) throws Exception {
        vm = JdiKit.attach(vmm, port);
        configure.accept(vm);
        ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter("RedefineTarget");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
    }

    BreakpointRequest breakpoint(int line) throws Exception {
        // Looked up again each time: Eclipse's JDI keeps the old lines in the type it gave first.
        List<Location> at = vm.classesByName("RedefineTarget").get(0).locationsOfLine(line);
        JdiKit.check(!at.isEmpty(), "no code at line " + line);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at.get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
        return bp;
    }

    void stepOver(ThreadReference t) {
        StepRequest step = vm.eventRequestManager().createStepRequest(t, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        step.enable();
    }

    String redefineFails(String name, byte[] bytes) {
        try {
            vm.redefineClasses(Map.of(target, bytes));
            return "none";
        } catch (Throwable e) {
            System.out.println("REDEFINE " + name + " " + e.getClass().getName());
            return e.getClass().getName();
        }
    }

    void loop() throws Exception {
        while (true) {
            EventSet set = JdiKit.next(vm, 60_000);
            for (Event event : set) {
                if (event instanceof ClassPrepareEvent) {
                    target = ((ClassPrepareEvent) event).referenceType();
                    breakpoint(lines.get("bp-round"));
                    greetBp = breakpoint(lines.get("greet-first"));
                } else if (event instanceof BreakpointEvent) {
                    BreakpointEvent hit = (BreakpointEvent) event;
                    int line = hit.location().lineNumber();
                    String method = hit.location().method().name();
                    if (method.equals("greet")) {
                        greetHits++;
                        if (greetHits == 1) {
                            JdiKit.check(line == lines.get("greet-first"), "greet stopped at " + line);
                        } else {
                            JdiKit.check(line == newFirst, "redefined greet stopped at " + line + ", not " + newFirst);
                            JdiKit.check(!hit.location().method().isObsolete(), "greet is obsolete");
                            System.out.println("SCENARIO breakpoint-after-redefine PASS");
                            stepsAfterRedefine = 0;
                        }
                        stepOver(hit.thread());
                    } else if (method.equals("main")) {
                        onRound(hit);
                    }
                } else if (event instanceof StepEvent) {
                    StepEvent step = (StepEvent) event;
                    vm.eventRequestManager().deleteEventRequest(step.request());
                    int line = step.location().lineNumber();
                    String method = step.location().method().name();
                    if (greetHits == 1) {
                        JdiKit.check(method.equals("greet") && line == lines.get("greet-return"),
                                "step before the redefine ended at " + method + ":" + line);
                        System.out.println("SCENARIO step-before-redefine PASS");
                    } else if (greetHits == 2) {
                        // The new code's lines, not the old ones' (the agent's line tables are fresh).
                        stepsAfterRedefine++;
                        JdiKit.check(method.equals("greet") && line == newFirst + stepsAfterRedefine,
                                "step " + stepsAfterRedefine + " after the redefine ended at " + method + ":" + line);
                        if (stepsAfterRedefine < 2) {
                            stepOver(step.thread());
                        } else {
                            System.out.println("SCENARIO steps-after-redefine PASS");
                        }
                    }
                } else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
                    return;
                }
            }
            set.resume();
        }
    }

    void onRound(BreakpointEvent hit) throws Exception {
        if (greetHits != 1) return;  // round 0 only: redefine once
        JdiKit.check(vm.canRedefineClasses(), "canRedefineClasses is false");
        JdiKit.check(!vm.canAddMethod() && !vm.canUnrestrictedlyRedefineClasses(), "more than HotSpot can do");
        String added = redefineFails("added-method", Files.readAllBytes(Paths.get(args[3])));
        String field = redefineFails("added-field", Files.readAllBytes(Paths.get(args[4])));
        String name = redefineFails("other-name", Files.readAllBytes(Paths.get(args[5])));
        String garbage = redefineFails("garbage", Files.readAllBytes(Paths.get(args[6])));
        String version = redefineFails("bad-version", Files.readAllBytes(Paths.get(args[8])));
        JdiKit.check(added.equals("java.lang.UnsupportedOperationException"), "added method: " + added);
        JdiKit.check(field.equals("java.lang.UnsupportedOperationException"), "added field: " + field);
        JdiKit.check(name.equals("java.lang.NoClassDefFoundError"), "other name: " + name);
        JdiKit.check(garbage.equals("java.lang.ClassFormatError"), "garbage: " + garbage);
        JdiKit.check(version.equals("java.lang.UnsupportedClassVersionError"), "bad version: " + version);
        System.out.println("SCENARIO refused-redefinitions PASS");
        vm.redefineClasses(Map.of(target, Files.readAllBytes(Paths.get(args[2]))));
        // Looked up again: Eclipse's JDI keeps the old Method objects (and their lines) of `target`.
        Method greet = vm.classesByName("RedefineTarget").get(0).methodsByName("greet").get(0);
        JdiKit.check(greet.location().lineNumber() == newFirst, "greet now starts at " + greet.location().lineNumber());
        // The JDK's JDI deletes its breakpoint requests in the redefined class (Eclipse's keeps
        // them; the agent forgets them either way, as JVMTI cleared them): set again at the
        // same place (greet, index 0), it must fire.
        breakpoint(newFirst);
        System.out.println("SCENARIO redefine PASS");
    }
}
