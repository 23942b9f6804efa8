"""Stream capture: the rule engine (sequences, the state machine, the enqueue path, the rules of
synchronising calls, CIG capture) and the CIG entries.
"""
