// Method and field events through a JDI implementation (the JDK's, or Eclipse's
// through eclipse/EventsEclipse.java): attaches to EventsFixture running
// "methods", and at the fixture's ClassPrepare requests MethodEntry, MethodExit
// (with return values) and a ModificationWatchpoint on `value`, all filtered to
// the fixture class. Prints one line per event, then "RESULT ok".
//
// Usage: EventsJdi <debuggeePort>
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Field;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.ModificationWatchpointEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import com.sun.jdi.request.ModificationWatchpointRequest;
import java.util.Map;

public final class EventsJdi {
    public static void main(String[] args) throws Exception {
        System.exit(run(Bootstrap.virtualMachineManager(), args[0]));
    }

    // The same text from both JDI implementations (their toString() differ).
    static String text(com.sun.jdi.Value v) {
        if (v == null) return "null";
        if (v instanceof com.sun.jdi.VoidValue) return "void";
        if (v instanceof com.sun.jdi.StringReference) return '"' + ((com.sun.jdi.StringReference) v).value() + '"';
        if (v instanceof com.sun.jdi.PrimitiveValue) return v.toString();
        return v.type().name();
    }

    public static int run(VirtualMachineManager vmm, String port) throws Exception {
        AttachingConnector attach = null;
        for (AttachingConnector c : vmm.attachingConnectors()) {
            if (c.transport().name().equals("dt_socket")) attach = c;
        }
        Map<String, Connector.Argument> arguments = attach.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(port);
        VirtualMachine vm = attach.attach(arguments);
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
            set.resume();
        }
    }
}
