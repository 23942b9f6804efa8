"""Modules and kernels: images, the linker, kernels and their parameter types, argument slots,
module variables, the launch and the PTX run; their entries and rows.
"""
