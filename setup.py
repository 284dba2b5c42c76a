"""Map the source folders onto one import name: ``solvers/`` is ``flipgame``, ``verify/`` is
``flipgame.verify``.  Everything else is in pyproject.toml."""

from setuptools import find_packages, setup

FOLDERS = {"flipgame": "solvers", "flipgame.verify": "verify"}

packages = [name for name in FOLDERS]
for name, folder in FOLDERS.items():
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=dict(FOLDERS), package_data={"flipgame.core": ["measured.json"]})
