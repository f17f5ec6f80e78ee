// The agent library; its entry points live in agent.cc (linked whole from the backend library).
