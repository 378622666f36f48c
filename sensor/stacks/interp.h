/* SPDX-License-Identifier: MIT */
/*
 * interp.h - which native frames are an interpreter running its program.
 *
 * A process running a script samples as the interpreter's own C functions.
 * Where those functions have names (the interpreter exports them, or a
 * debug file names them), the frames that evaluate the script are known by
 * name, and saying so tells an analyst "this time went to the Python code"
 * rather than to some C function of python3.11. The script's own functions
 * are not known this way: they live in the interpreter's frame objects in
 * the process's memory, which the sensor does not read.
 *
 * Debian 12, as shipped (no -dbgsym packages):
 *   python  CPython exports its evaluation loop, _PyEval_EvalFrameDefault,
 *           and the calls into it (PyEval_EvalCode...): recognised by name
 *           in any object (python3.11, libpython3.11.so, an embedder).
 *           Since 3.11 a Python-to-Python call stays inside one C frame of
 *           the loop, so a frame is "some Python code", not one function.
 *   perl    libperl.so exports its run loops (Perl_runops_standard) and
 *           every op (Perl_pp_*): recognised by name in any object.
 *   bash    exports its executor (execute_command_internal, ...) because
 *           loadable builtins link against it; these names are generic C
 *           names, so only in an object whose file is called bash or rbash.
 *   dash    exports nothing: with dash-dbgsym installed its evaluator
 *           (evaltree, evalcommand, ...) is named and recognised in an
 *           object called dash; without it, frames are dash+0xOFFSET.
 * A ".cold", ".part.N", ".isra.N", ".constprop.N" or ".lto_priv.N" suffix
 * that compilers add to a split or cloned function is looked through.
 */
#ifndef PL_INTERP_H
#define PL_INTERP_H

/* "python", "perl", "bash", "dash" (static strings) when function, a frame
 * of the object at path object, is that interpreter evaluating its
 * program; NULL otherwise, and for a NULL function. */
const char *interp__of(const char *object, const char *function);

#endif
