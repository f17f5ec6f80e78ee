// Attaches with JDI to the HeapTypes fixture (already running and "ready") and
// prints what the heap, module and type commands answer, one fact per line
// ("KEY value"), for test_heap_types.py to assert. Timings are printed as
// "TIME <what> <milliseconds>".
//
// Usage: HeapTypesJdi <port>
// Ends with "RESULT ok", or "RESULT fail: ..." and exit status 1.
import com.sun.jdi.AbsentInformationException;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ClassLoaderReference;
import com.sun.jdi.Method;
import com.sun.jdi.ModuleReference;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

public class HeapTypesJdi {
    public static void main(String[] args) throws Exception {
        VirtualMachine vm = null;
        try {
            vm = JdiKit.attach(Bootstrap.virtualMachineManager(), Integer.parseInt(args[0]));
            vm.suspend();
            run(vm);
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        } finally {
            if (vm != null) {
                try {
                    vm.resume();
                    vm.dispose();
                } catch (Throwable ignored) {
                    // the run has already reported
                }
            }
        }
    }

    static void fact(String key, Object value) {
        System.out.println(key + " " + value);
    }

    static ReferenceType type(VirtualMachine vm, String name) {
        List<ReferenceType> found = vm.classesByName(name);
        if (found.size() != 1) {
            throw new IllegalStateException(found.size() + " types named " + name);
        }
        return found.get(0);
    }

    static ObjectReference staticObject(ReferenceType type, String field) {
        return (ObjectReference) type.getValue(type.fieldByName(field));
    }

    // The fastest of 5 runs, in milliseconds.
    static long best(Runnable action) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            action.run();
            best = Math.min(best, (System.nanoTime() - start) / 1_000_000);
        }
        return best;
    }

    static void run(VirtualMachine vm) throws Exception {
        fact("CAP canGetInstanceInfo", vm.canGetInstanceInfo());
        fact("CAP canGetConstantPool", vm.canGetConstantPool());
        fact("CAP canGetModuleInfo", vm.canGetModuleInfo());
        fact("CAP canGetClassFileVersion", vm.canGetClassFileVersion());
        fact("CAP canGetSourceDebugExtension", vm.canGetSourceDebugExtension());
        fact("CAP canGetBytecodes", vm.canGetBytecodes());
        fact("CAP canGetSyntheticAttribute", vm.canGetSyntheticAttribute());
        fact("CAP canRequestVMDeathEvent", vm.canRequestVMDeathEvent());
        fact("CAP canUseInstanceFilters", vm.canUseInstanceFilters());
        fact("CAP canGetMonitorInfo", vm.canGetMonitorInfo());
        fact("CAP canGetOwnedMonitorInfo", vm.canGetOwnedMonitorInfo());
        fact("CAP canGetCurrentContendedMonitor", vm.canGetCurrentContendedMonitor());
        fact("CAP canGetMonitorFrameInfo", vm.canGetMonitorFrameInfo());
        fact("CAP canRedefineClasses", vm.canRedefineClasses());
        fact("CAP canPopFrames", vm.canPopFrames());
        fact("CAP canForceEarlyReturn", vm.canForceEarlyReturn());
        fact("CAP canWatchFieldModification", vm.canWatchFieldModification());
        fact("CAP canWatchFieldAccess", vm.canWatchFieldAccess());
        fact("CAP canRequestMonitorEvents", vm.canRequestMonitorEvents());
        fact("CAP canUseSourceNameFilters", vm.canUseSourceNameFilters());

        // AllClasses first, while JDI has no types cached: this is the agent's reply.
        long start = System.nanoTime();
        List<ReferenceType> all = vm.allClasses();
        fact("TIME allClasses", (System.nanoTime() - start) / 1_000_000);
        fact("ALL_CLASSES", all.size());

        ReferenceType main = type(vm, "HeapTypes");
        ReferenceType leaf = type(vm, "HeapTypes$Leaf");
        ReferenceType holder = type(vm, "HeapTypes$Holder");
        ReferenceType garbage = type(vm, "HeapTypes$Garbage");

        start = System.nanoTime();
        long[] one = vm.instanceCounts(List.of(leaf));
        fact("TIME instanceCounts1", (System.nanoTime() - start) / 1_000_000);
        fact("COUNT1 leaf", one[0]);
        start = System.nanoTime();
        long[] three = vm.instanceCounts(List.of(leaf, holder, garbage));
        fact("TIME instanceCounts3", (System.nanoTime() - start) / 1_000_000);
        fact("COUNT3", three[0] + "," + three[1] + "," + three[2]);
        start = System.nanoTime();
        long[] everything = vm.instanceCounts(all);
        fact("TIME instanceCountsAll", (System.nanoTime() - start) / 1_000_000);
        fact("COUNT_ALL leaf", everything[all.indexOf(leaf)]);
        fact("COUNT_ALL holder", everything[all.indexOf(holder)]);

        fact("TIME instanceCountsLeafBest", best(() -> vm.instanceCounts(List.of(leaf))));
        fact("TIME instanceCountsHolderBest", best(() -> vm.instanceCounts(List.of(holder))));
        fact("TIME instanceCounts3Best", best(() -> vm.instanceCounts(List.of(leaf, holder, garbage))));

        start = System.nanoTime();
        List<ObjectReference> ten = leaf.instances(10);
        fact("TIME instances10", (System.nanoTime() - start) / 1_000_000);
        Set<String> tenTypes = new TreeSet<>();
        for (ObjectReference o : ten) {
            tenTypes.add(o.referenceType().name());
        }
        fact("INSTANCES leaf10", ten.size() + " " + tenTypes);
        fact("INSTANCES holderAll", holder.instances(0).size());
        fact("INSTANCES holder2", holder.instances(2).size());
        fact("INSTANCES garbage", garbage.instances(0).size());

        ObjectReference refA = staticObject(main, "refA");
        ObjectReference refB = staticObject(main, "refB");
        ObjectReference arrayRef = staticObject(main, "arrayRef");
        ObjectReference target = (ObjectReference) refA.getValue(refA.referenceType().fieldByName("field"));
        Set<ObjectReference> referrers = new HashSet<>(target.referringObjects(0));
        fact("REFERRERS count", referrers.size());
        fact("REFERRERS expected", referrers.equals(Set.of(refA, refB, arrayRef)));
        List<ObjectReference> two = target.referringObjects(2);
        fact("REFERRERS limited", two.size() + " " + Set.of(refA, refB, arrayRef).containsAll(two));
        ObjectReference self = staticObject(main, "selfRef");
        fact("REFERRERS self", self.referringObjects(0).contains(self));

        ModuleReference base = null;
        for (ModuleReference m : vm.allModules()) {
            if ("java.base".equals(m.name())) {
                base = m;
            }
        }
        fact("MODULE base", base != null);
        fact("MODULE baseLoader", base == null ? "missing" : String.valueOf(base.classLoader()));
        ReferenceType string = type(vm, "java.lang.String");
        fact("MODULE stringIsBase", base != null && base.equals(string.module()));
        ModuleReference fixtureModule = main.module();
        fact("MODULE fixtureName", String.valueOf(fixtureModule.name()));
        fact("MODULE fixtureLoaderIsApp", fixtureModule.classLoader() != null
                && fixtureModule.classLoader().equals(main.classLoader()));

        vm.setDefaultStratum("Java");
        fact("STRATUM", vm.getDefaultStratum());
        vm.setDefaultStratum(null);

        fact("CP count", main.constantPoolCount());
        fact("CP bytes", main.constantPool().length);
        fact("VERSION", main.majorVersion() + "." + main.minorVersion());
        ReferenceType leafArray = type(vm, "HeapTypes$Leaf[]");
        fact("VERSION array", leafArray.majorVersion() + "." + leafArray.minorVersion());
        ReferenceType gen = type(vm, "Gen00042");
        fact("VERSION generated", gen.majorVersion() + "." + gen.minorVersion());

        ClassLoaderReference app = main.classLoader();
        List<ReferenceType> visible = app.visibleClasses();
        fact("VISIBLE fixture", visible.contains(main) + " " + visible.contains(leaf));
        fact("VISIBLE generated", visible.contains(gen));
        fact("VISIBLE genLoader", gen.classLoader().visibleClasses().contains(gen));

        Method mainMethod = main.methodsByName("main").get(0);
        fact("OBSOLETE main", mainMethod.isObsolete());
        fact("BYTECODES main", mainMethod.bytecodes().length > 0);
        Method hashCode = type(vm, "java.lang.Object").methodsByName("hashCode").get(0);
        fact("BYTECODES native", hashCode.isNative() + " " + hashCode.bytecodes().length);

        try {
            fact("SDE fixture", main.sourceDebugExtension());
        } catch (AbsentInformationException e) {
            fact("SDE fixture", "absent");
        }
        fact("SDE generated", type(vm, "GenSde").sourceDebugExtension().replace("\n", "|"));
    }
}
