// The agent library; its entry points live in entry_points.cc (linked whole from the backend library).
