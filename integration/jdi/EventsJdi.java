// Method and field events through a JDI implementation (the JDK's, or Eclipse's
// through eclipse/EventsEclipse.java): attaches to EventsFixture running
// "methods", and at the fixture's ClassPrepare requests MethodEntry, MethodExit
// (with return values) and a ModificationWatchpoint on `value`, all filtered to
// the fixture class. Prints one line per event, then "RESULT ok".
// With scenario "jdi" (EventsFixture running "jdi") it runs phases instead, see
// runPhases: monitor events, exception events, modifiers, ClassUnload.
//
// Usage: EventsJdi <debuggeePort> [methods|jdi]
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Field;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.Location;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.ClassUnloadEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.ExceptionEvent;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.ModificationWatchpointEvent;
import com.sun.jdi.event.MonitorContendedEnterEvent;
import com.sun.jdi.event.MonitorContendedEnteredEvent;
import com.sun.jdi.event.MonitorWaitEvent;
import com.sun.jdi.event.MonitorWaitedEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.ClassUnloadRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.ExceptionRequest;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import com.sun.jdi.request.ModificationWatchpointRequest;
import com.sun.jdi.request.MonitorContendedEnterRequest;
import com.sun.jdi.request.MonitorContendedEnteredRequest;
import com.sun.jdi.request.MonitorWaitRequest;
import com.sun.jdi.request.MonitorWaitedRequest;

public final class EventsJdi {
    public static void main(String[] args) throws Exception {
        System.exit(run(Bootstrap.virtualMachineManager(), args[0], args.length > 1 ? args[1] : "methods"));
    }

    // The same text from both JDI implementations (their toString() differ).
    static String text(com.sun.jdi.Value v) {
        if (v == null) return "null";
        if (v instanceof com.sun.jdi.VoidValue) return "void";
        if (v instanceof com.sun.jdi.StringReference) return '"' + ((com.sun.jdi.StringReference) v).value() + '"';
        if (v instanceof com.sun.jdi.PrimitiveValue) return v.toString();
        return v.type().name();
    }

    public static int run(VirtualMachineManager vmm, String port, String scenario) throws Exception {
        VirtualMachine vm = JdiKit.attach(vmm, Integer.parseInt(port));
        if (scenario.equals("jdi")) return new Phases(vm).run();
        EventRequestManager erm = vm.eventRequestManager();
        ClassPrepareRequest prepare = erm.createClassPrepareRequest();
        prepare.addClassFilter("EventsFixture");
        prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        prepare.enable();
        System.out.println("CAPS watch=" + vm.canWatchFieldModification() + " monitors=" + vm.canRequestMonitorEvents()
                + " returns=" + vm.canGetMethodReturnValues());
        // No vm.resume() here: the VMStart event set still waits in the queue, and
        // resuming it too would resume the VM a second time, past the ClassPrepare.
        while (true) {
            EventSet set = vm.eventQueue().remove(30_000);
            if (set == null) {
                System.out.println("RESULT timeout");
                return 1;
            }
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    ReferenceType fixture = ((ClassPrepareEvent) e).referenceType();
                    MethodEntryRequest entry = erm.createMethodEntryRequest();
                    entry.addClassFilter("EventsFixture");
                    entry.setSuspendPolicy(EventRequest.SUSPEND_NONE);
                    entry.enable();
                    MethodExitRequest exit = erm.createMethodExitRequest();
                    exit.addClassFilter(fixture);
                    exit.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    exit.enable();
                    Field value = fixture.fieldByName("value");
                    ModificationWatchpointRequest watch = erm.createModificationWatchpointRequest(value);
                    watch.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    watch.enable();
                    prepare.disable();
                } else if (e instanceof MethodEntryEvent) {
                    System.out.println("ENTRY " + ((MethodEntryEvent) e).method().name());
                } else if (e instanceof MethodExitEvent) {
                    MethodExitEvent x = (MethodExitEvent) e;
                    System.out.println("EXIT " + x.method().name() + " " + text(x.returnValue()) + " line="
                            + x.location().lineNumber());
                } else if (e instanceof ModificationWatchpointEvent) {
                    ModificationWatchpointEvent m = (ModificationWatchpointEvent) e;
                    System.out.println("MOD " + m.field().name() + " " + text(m.valueToBe()) + " in "
                            + m.location().method().name() + " thread=" + m.thread().name());
                } else if (e instanceof VMDisconnectEvent) {
                    System.out.println("RESULT ok");
                    return 0;
                }
            }
            try {
                set.resume();
            } catch (VMDisconnectedException gone) {
                // The VM exits as soon as main's last exit is resumed; stock now and
                // then closes the connection before the reply to that resume is sent.
                System.out.println("RESULT ok");
                return 0;
            }
        }
    }

    // Scenario "jdi". A SUSPEND_ALL breakpoint in EventsFixture.phaseReached()
    // marks each phase: there the previous phase's requests are disabled and the
    // next phase's created, with the live objects they need (main thread, lock,
    // chosen instance). Every request is named by its "name" property.
    static final class Phases {
        final VirtualMachine vm;
        final EventRequestManager erm;
        final java.util.List<EventRequest> current = new java.util.ArrayList<>();
        ReferenceType fixture;
        BreakpointRequest phaseStop;
        com.sun.jdi.ObjectReference lock;
        ThreadReference mainThread;

        Phases(VirtualMachine vm) {
            this.vm = vm;
            this.erm = vm.eventRequestManager();
        }

        <R extends EventRequest> R add(R request, String name, int policy) {
            request.putProperty("name", name);
            request.setSuspendPolicy(policy);
            request.enable();
            current.add(request);
            return request;
        }

        // An event JDI found no request for (seen once, stock on JDK 25 through Eclipse's
        // JDI, after the last phase) is named so, and shows in the output's diff.
        static String name(Event e) {
            return e.request() == null ? "(no-request)" : (String) e.request().getProperty("name");
        }

        String who(com.sun.jdi.ObjectReference monitor) {
            return monitor.equals(lock) ? "lock" : monitor.referenceType().name();
        }

        // A thread the scenario never touches: suspended only by SUSPEND_ALL.
        boolean bystanderSuspended() {
            for (ThreadReference t : vm.allThreads()) {
                if (t.name().equals("Reference Handler")) return t.isSuspended();
            }
            throw new IllegalStateException("no Reference Handler thread");
        }

        static String line(Location l) {
            return l == null ? "null" : String.valueOf(l.lineNumber());
        }

        int run() throws Exception {
            ClassPrepareRequest prepare = erm.createClassPrepareRequest();
            prepare.addClassFilter("EventsFixture");
            prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            prepare.enable();
            while (true) {
                EventSet set = vm.eventQueue().remove(30_000);
                if (set == null) {
                    System.out.println("RESULT timeout");
                    return 1;
                }
                for (Event e : set) {
                    if (e instanceof ClassPrepareEvent) {
                        fixture = ((ClassPrepareEvent) e).referenceType();
                        Location reached = fixture.methodsByName("phaseReached").get(0).location();
                        phaseStop = erm.createBreakpointRequest(reached);
                        phaseStop.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                        phaseStop.enable();
                        prepare.disable();
                    } else if (e instanceof BreakpointEvent && e.request() == phaseStop) {
                        startPhase((BreakpointEvent) e);
                    } else if (e instanceof VMDisconnectEvent) {
                        System.out.println("RESULT ok");
                        return 0;
                    } else if (!(e instanceof com.sun.jdi.event.VMStartEvent)
                            && !(e instanceof com.sun.jdi.event.VMDeathEvent)) {
                        report(e);
                    }
                }
                set.resume();
            }
        }

        void startPhase(BreakpointEvent stop) {
            for (EventRequest r : current) r.disable();
            current.clear();
            String phase = ((StringReference) fixture.getValue(fixture.fieldByName("phase"))).value();
            mainThread = stop.thread();
            System.out.println("PHASE " + phase + " bystander-suspended=" + bystanderSuspended());
            switch (phase) {
                case "monitors": {
                    lock = (com.sun.jdi.ObjectReference) fixture.getValue(fixture.fieldByName("lock"));
                    if (vm.getClass().getName().startsWith("org.eclipse")) {
                        // Eclipse's JDI (3.20) reads MonitorWait's timeout and MonitorWaited's
                        // timedOut as tagged values, not the plain long/boolean JDWP sends,
                        // and throws from EventQueue.remove: for any agent.
                        System.out.println("SKIPPED monitor-wait");
                    } else {
                        MonitorWaitRequest wait = erm.createMonitorWaitRequest();
                        wait.addThreadFilter(mainThread);
                        add(wait, "wait", EventRequest.SUSPEND_NONE);
                        MonitorWaitedRequest waited = erm.createMonitorWaitedRequest();
                        waited.addThreadFilter(mainThread);
                        add(waited, "waited", EventRequest.SUSPEND_NONE);
                    }
                    MonitorContendedEnterRequest enter = erm.createMonitorContendedEnterRequest();
                    enter.addClassExclusionFilter("java.*");
                    add(enter, "enter", EventRequest.SUSPEND_EVENT_THREAD);
                    MonitorContendedEnteredRequest entered = erm.createMonitorContendedEnteredRequest();
                    entered.addClassFilter("*Fixture");
                    add(entered, "entered", EventRequest.SUSPEND_NONE);
                    break;
                }
                case "exceptions": {
                    ReferenceType boom = vm.classesByName("EventsFixture$Boom").get(0);
                    ReferenceType subBoom = vm.classesByName("EventsFixture$SubBoom").get(0);
                    ReferenceType tick = vm.classesByName("EventsFixture$Tick").get(0);
                    add(erm.createExceptionRequest(boom, true, false), "boom-caught",
                            EventRequest.SUSPEND_EVENT_THREAD);
                    add(erm.createExceptionRequest(subBoom, false, true), "subboom-uncaught",
                            EventRequest.SUSPEND_EVENT_THREAD);
                    ExceptionRequest second = erm.createExceptionRequest(tick, true, true);
                    second.addCountFilter(2);
                    add(second, "tick-count2", EventRequest.SUSPEND_EVENT_THREAD);
                    break;
                }
                case "modifiers": {
                    com.sun.jdi.ObjectReference chosen =
                            (com.sun.jdi.ObjectReference) fixture.getValue(fixture.fieldByName("chosen"));
                    Location pokeStart = fixture.methodsByName("poke").get(0).location();
                    BreakpointRequest poke = erm.createBreakpointRequest(pokeStart);
                    poke.addInstanceFilter(chosen);
                    add(poke, "poke-chosen", EventRequest.SUSPEND_EVENT_THREAD);
                    java.util.List<Location> marks = new java.util.ArrayList<>();
                    try {
                        marks.addAll(fixture.methodsByName("marks").get(0).allLineLocations());
                    } catch (com.sun.jdi.AbsentInformationException x) {
                        throw new IllegalStateException(x);
                    }
                    marks.sort((l, r) -> Integer.compare(l.lineNumber(), r.lineNumber()));
                    add(erm.createBreakpointRequest(marks.get(0)), "mark-thread", EventRequest.SUSPEND_EVENT_THREAD);
                    add(erm.createBreakpointRequest(marks.get(1)), "mark-none", EventRequest.SUSPEND_NONE);
                    MethodEntryRequest onMain = erm.createMethodEntryRequest();
                    onMain.addClassFilter("EventsFixture");
                    onMain.addThreadFilter(mainThread);
                    add(onMain, "entry-main", EventRequest.SUSPEND_NONE);
                    MethodEntryRequest nested = erm.createMethodEntryRequest();
                    nested.addClassFilter("EventsFixture$*");
                    nested.addClassExclusionFilter("*$Helper");
                    nested.addClassExclusionFilter("EventsFixture$Oth*");
                    nested.addClassExclusionFilter("EventsFixture$$*");  // lambda proxies
                    add(nested, "entry-nested", EventRequest.SUSPEND_NONE);
                    break;
                }
                case "unload": {
                    ClassUnloadRequest unload = erm.createClassUnloadRequest();
                    unload.addClassFilter("EventsUnload*");
                    add(unload, "unload", EventRequest.SUSPEND_NONE);
                    ClassUnloadRequest excluded = erm.createClassUnloadRequest();
                    excluded.addClassExclusionFilter("EventsUnload*");
                    add(excluded, "unload-excluded", EventRequest.SUSPEND_NONE);
                    // Events only to carry the unload (EventsFixture.awaitUnloadSeen): main's
                    // System.gc() calls, until the driver has had the unload; not printed.
                    MethodEntryRequest flush = erm.createMethodEntryRequest();
                    flush.addClassFilter("java.lang.System");
                    flush.addThreadFilter(mainThread);
                    add(flush, "flush", EventRequest.SUSPEND_NONE);
                    break;
                }
                case "end":
                    break;
                default:
                    throw new IllegalStateException("phase " + phase);
            }
        }

        // Lets EventsFixture.marks() return (it spins until then).
        void release() {
            setFlag("released");
        }

        void setFlag(String field) {
            try {
                ((com.sun.jdi.ClassType) fixture).setValue(fixture.fieldByName(field), vm.mirrorOf(true));
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        }

        void report(Event e) {
            if (e instanceof MonitorWaitEvent) {
                MonitorWaitEvent w = (MonitorWaitEvent) e;
                System.out.println("WAIT " + name(e) + " thread=" + w.thread().name() + " monitor=" + who(w.monitor())
                        + " timeout=" + w.timeout());
            } else if (e instanceof MonitorWaitedEvent) {
                MonitorWaitedEvent w = (MonitorWaitedEvent) e;
                System.out.println("WAITED " + name(e) + " thread=" + w.thread().name() + " monitor="
                        + who(w.monitor()) + " timedout=" + w.timedout());
            } else if (e instanceof MonitorContendedEnterEvent) {
                MonitorContendedEnterEvent c = (MonitorContendedEnterEvent) e;
                System.out.println("CONTEND " + name(e) + " thread=" + c.thread().name() + " monitor="
                        + who(c.monitor()) + " line=" + line(c.location()) + " suspended=" + c.thread().isSuspended()
                        + " main-suspended=" + mainThread.isSuspended());
            } else if (e instanceof MonitorContendedEnteredEvent) {
                MonitorContendedEnteredEvent c = (MonitorContendedEnteredEvent) e;
                System.out.println("CONTENDED " + name(e) + " thread=" + c.thread().name() + " monitor="
                        + who(c.monitor()) + " line=" + line(c.location()));
            } else if (e instanceof ExceptionEvent) {
                ExceptionEvent x = (ExceptionEvent) e;
                com.sun.jdi.ObjectReference thrown = x.exception();
                String type = thrown.referenceType().name();
                String n = "";
                if (type.equals("EventsFixture$Tick")) {
                    n = " n=" + thrown.getValue(thrown.referenceType().fieldByName("n"));
                }
                System.out.println("EXCEPTION " + name(e) + " " + type + n + " thread=" + x.thread().name() + " line="
                        + line(x.location()) + " catch=" + line(x.catchLocation()));
            } else if (e instanceof BreakpointEvent) {
                BreakpointEvent b = (BreakpointEvent) e;
                String self = "";
                if (name(e).equals("poke-chosen")) {
                    try {
                        com.sun.jdi.ObjectReference me = b.thread().frame(0).thisObject();
                        self = " value=" + me.getValue(fixture.fieldByName("value"));
                    } catch (com.sun.jdi.IncompatibleThreadStateException x) {
                        self = " value=not-suspended";
                    }
                }
                System.out.println("BREAKPOINT " + name(e) + " " + b.location().method().name() + self + " line="
                        + line(b.location()) + " suspended=" + b.thread().isSuspended() + " bystander-suspended="
                        + bystanderSuspended());
                if (name(e).equals("mark-none")) release();
            } else if (e instanceof MethodEntryEvent && name(e).equals("flush")) {
                // Only a carrier for the unload (see startPhase, "unload").
            } else if (e instanceof MethodEntryEvent) {
                MethodEntryEvent m = (MethodEntryEvent) e;
                System.out.println("ENTERED " + name(e) + " " + m.method().declaringType().name() + "."
                        + m.method().name() + " thread=" + m.thread().name());
            } else if (e instanceof ClassUnloadEvent) {
                String unloaded = ((ClassUnloadEvent) e).className();
                System.out.println("UNLOAD " + name(e) + " " + unloaded);
                // Lets main on to phase "end" (EventsFixture.awaitUnloadSeen).
                if (name(e).equals("unload") && unloaded.equals("EventsUnloadable")) setFlag("unloadSeen");
            } else {
                System.out.println("UNEXPECTED " + e);
            }
        }
    }
}
