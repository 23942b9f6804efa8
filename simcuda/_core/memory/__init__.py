"""Memory: the model (allocations, the address space), host memory, pools, virtual memory, peer
access, batched copies, memory operations, pointer attributes; their entries and rows.
"""
