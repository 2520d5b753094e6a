// Nothing of its own: the object library it belongs to builds the tests'
// precompiled header (tests/CMakeLists.txt), which every test binary reuses.
