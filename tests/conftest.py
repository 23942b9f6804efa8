"""Shared test configuration: the sample user projects are run by tests of their own, in pytest processes of
their own (tests/test_pytest_plugin.py), never collected as part of this suite."""
collect_ignore = ["sample_projects"]
