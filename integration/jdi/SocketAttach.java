// Attaches to a debuggee listening on 127.0.0.1:<port> through the connector
// named com.sun.jdi.SocketAttach of the given VirtualMachineManager. One copy
// for every JDI driver; the manager is a parameter so that the Eclipse wrappers
// can pass Eclipse's (its socket connector has the same name and arguments).

import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import java.util.Map;

final class SocketAttach {
    private SocketAttach() {}

    static VirtualMachine attach(VirtualMachineManager vmm, int port) throws Exception {
        for (AttachingConnector c : vmm.attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) {
                Map<String, Connector.Argument> arguments = c.defaultArguments();
                arguments.get("hostname").setValue("127.0.0.1");
                arguments.get("port").setValue(Integer.toString(port));
                return c.attach(arguments);
            }
        }
        throw new IllegalStateException("no SocketAttach connector");
    }
}
