// Linked into the manylinux wheels by tools/build_wheels.sh only (never into a source build).
//
// Those wheels carry LLVM's C++ runtime statically (zig c++; the manylinux glibc does not promise a new
// enough libstdc++), and its Itanium demangler alone is 112 KB of the stripped module, a third of the
// wheel. pybind11 demangles a C++ type name only to print a type that has no Python binding (in a
// signature or a cast error); piperik binds every type its functions take or return, so no docstring
// needs it (tests/test_packaging.py::test_no_cxx_type_names_in_docstrings checks every one, on the
// installed module). With this definition the linker takes no demangler from the runtime, and a name
// pybind11 would have demangled is shown as the compiler spells it (status -2: "not a valid name").
#include <cstddef>

namespace __cxxabiv1 {
extern "C" char *__cxa_demangle(const char *mangled_name, char *output_buffer, std::size_t *length, int *status)
{
    (void)mangled_name;
    (void)output_buffer;
    (void)length;
    if (status != nullptr) {
        *status = -2;
    }
    return nullptr;
}
} // namespace __cxxabiv1
