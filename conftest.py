"""Test-session defaults: notebooks and tests run at the smoke scale unless ABC_SCALE says
otherwise (nbmake's kernels inherit this environment), with one quiet CPU thread policy."""
import os

os.environ.setdefault("ABC_SCALE", "smoke")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
