import test_numpy


def pytest_report_header(config):
    return f"stable_radix tests: RADIX_TEST_SEED={test_numpy.SEED} (set it to repeat this run's inputs)"
