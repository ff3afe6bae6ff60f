"""Files generated from the code and committed: package.json (`python -m
tools.gen.package_json`) and the scenarios' expected output (`python -m tools.gen.scenarios`)."""
