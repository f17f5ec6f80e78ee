// The interface-method invocation matrix through com.sun.jdi: every method of
// InterfaceInvoke's Top, Sub, Impl and Plain (static, default, private, private
// static, abstract, <clinit>) invoked through InterfaceType.invokeMethod (Top,
// Sub), ClassType.invokeMethod (Impl) and ObjectReference.invokeMethod (an Impl,
// virtual and nonvirtual). Prints "CASE <invoker> <method> <outcome>" per pair,
// the outcome being "=<returned string>" or the exception JDI threw (with the
// JDWP error code for an InternalException); test_invoke.py compares them with
// the table stock gives.
//
// Usage: InterfaceInvokeJdi <debuggeePort> <bpLine>  (Eclipse's JDI: eclipse/InterfaceInvokeEclipse.java)
import com.sun.jdi.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.util.ArrayList;
import java.util.List;

public final class InterfaceInvokeJdi {
    interface Call { Value run() throws Exception; }

    public static void main(String[] args) throws Exception {
        run(Bootstrap.virtualMachineManager(), args);
    }

    public static void run(VirtualMachineManager vmm, String[] args) throws Exception {
        VirtualMachine vm = JdiKit.attach(vmm, Integer.parseInt(args[0]));
        ClassType fixture = (ClassType) vm.classesByName("InterfaceInvoke").get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(
            fixture.locationsOfLine(Integer.parseInt(args[1])).get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
        ThreadReference thread = JdiKit.await(vm, BreakpointEvent.class, 60_000).thread();
        bp.disable();
        InterfaceType top = (InterfaceType) vm.classesByName("InterfaceInvoke$Top").get(0);
        InterfaceType sub = (InterfaceType) vm.classesByName("InterfaceInvoke$Sub").get(0);
        ClassType impl = (ClassType) vm.classesByName("InterfaceInvoke$Impl").get(0);
        ClassType plain = (ClassType) vm.classesByName("InterfaceInvoke$Plain").get(0);
        ObjectReference object = (ObjectReference) fixture.getValue(fixture.fieldByName("impl"));
        List<Method> methods = new ArrayList<>();
        for (ReferenceType t : List.of(top, sub, impl, plain)) {
            for (Method m : t.methods()) {
                if (!m.name().equals("compute") && !(m.isConstructor() && t != impl)) methods.add(m);
            }
        }
        final ThreadReference at = thread;
        for (Method m : methods) {
            String name = m.declaringType().name().replace("InterfaceInvoke$", "") + "." + m.name();
            // Single-threaded: the other threads (none of interest) stay as they are.
            int single = ObjectReference.INVOKE_SINGLE_THREADED;
            report("InterfaceType(Top)", name, () -> top.invokeMethod(at, m, List.of(), single));
            report("InterfaceType(Sub)", name, () -> sub.invokeMethod(at, m, List.of(), single));
            report("ClassType(Impl)", name, () -> impl.invokeMethod(at, m, List.of(), single));
            report("ClassType(Plain)", name, () -> plain.invokeMethod(at, m, List.of(), single));
            report("Object(Impl)", name, () -> object.invokeMethod(at, m, List.of(), single));
            report("Object(Impl),nonvirtual", name, () -> object.invokeMethod(at, m, List.of(),
                single | ObjectReference.INVOKE_NONVIRTUAL));
        }
        fixture.setValue(fixture.fieldByName("released"), vm.mirrorOf(true));
        vm.dispose();
        System.out.println("RESULT ok");
    }

    static void report(String invoker, String method, Call call) {
        String outcome;
        try {
            Value v = call.run();
            outcome = "=" + (v instanceof StringReference ? ((StringReference) v).value()
                                                           : v == null ? "null" : v.type().name());
        } catch (InternalException e) {
            outcome = "InternalException(" + e.errorCode() + ")";
        } catch (InvocationException e) {
            outcome = "InvocationException(" + e.exception().referenceType().name() + ")";
        } catch (Exception e) {
            outcome = e.getClass().getSimpleName();
        }
        System.out.println("CASE " + invoker + " " + method + " " + outcome);
    }
}
