// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: resolving kernel symbols that are not exported.
 *
 * kallsyms_lookup_name() is not exported since 5.7.  Its address is found
 * by registering (and at once unregistering) a kprobe on it: the kprobe
 * core resolves the name through kallsyms for us.
 *
 * The kprobe's address is not always the function's entry:
 *   - x86 with IBT: kprobes skip the ENDBR64 landing pad, so kp.addr is
 *     entry + 4.  An indirect call to entry + 4 has no ENDBR at its target
 *     and faults (#CP) on CPUs that enforce IBT.
 *   - ppc64 ELFv2: kprobes use the local entry point, past the two
 *     instructions that set up r2 (the TOC) from r12.  Calling it from a
 *     module leaves the module's TOC in r2 and the function then oopses.
 * Both are repaired the same way, and without any per-arch knowledge:
 * sprint_symbol() gives "name+off/size" for kp.addr from the kernel's own
 * symbol table, and kp.addr - off is the symbol's value, i.e. the global
 * entry point that an ordinary indirect call targets (ENDBR on x86, TOC
 * setup from r12 on ppc64; the compiler loads r12 for indirect calls).
 * We only accept it when the symbol there is exactly kallsyms_lookup_name.
 */
#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/string.h>

#include "mmtune.h"

typedef unsigned long (*kallsyms_lookup_name_t)(const char *name);
static kallsyms_lookup_name_t lookup_name_fn;

/* The core kernel's text and data, from kallsyms (not exported either). */
static unsigned long stext, etext, sdata, edata_end;

/*
 * Split "name+0xoff/0xsize [mod]" from sprint_symbol().  Returns false if
 * the text is not of that form.
 */
static bool parse_symbol(const char *buf, char *name, size_t len,
			 unsigned long *off)
{
	const char *plus = strchr(buf, '+');
	const char *slash;
	char num[24];
	size_t n;

	if (!plus || plus == buf || (size_t)(plus - buf) >= len)
		return false;
	slash = strchr(plus, '/');
	if (!slash)
		return false;
	n = slash - plus - 1;
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, plus + 1, n);
	num[n] = '\0';
	if (kstrtoul(num, 0, off))
		return false;
	memcpy(name, buf, plus - buf);
	name[plus - buf] = '\0';
	return true;
}

/*
 * True if @addr is inside the kernel symbol @name (exactly that name, not
 * a module's), and at its start when @at_start.
 */
bool mmtune_symbol_is(unsigned long addr, const char *name, bool at_start)
{
	char buf[KSYM_SYMBOL_LEN];
	char sym[KSYM_NAME_LEN];
	unsigned long off;

	if (!addr)
		return false;
	sprint_symbol(buf, addr);
	if (strchr(buf, '['))		/* "[module]": not the core kernel */
		return false;
	if (!parse_symbol(buf, sym, sizeof(sym), &off))
		return false;
	if (strcmp(sym, name))
		return false;
	return !at_start || off == 0;
}

int mmtune_symbols_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	char buf[KSYM_SYMBOL_LEN];
	char sym[KSYM_NAME_LEN];
	unsigned long addr, off;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot resolve kallsyms_lookup_name through a kprobe (%d)\n",
		       ret);
		return ret;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	sprint_symbol(buf, addr);
	if (!parse_symbol(buf, sym, sizeof(sym), &off) ||
	    strcmp(sym, "kallsyms_lookup_name") || off > addr) {
		pr_err("kprobe address of kallsyms_lookup_name resolves to '%s': refusing to call it\n",
		       buf);
		return -ENOENT;
	}
	lookup_name_fn = (kallsyms_lookup_name_t)(addr - off);

	/* The function must find itself, at the address we derived. */
	if (lookup_name_fn("kallsyms_lookup_name") != addr - off) {
		pr_err("kallsyms_lookup_name does not find itself: refusing it\n");
		lookup_name_fn = NULL;
		return -ENOENT;
	}

	stext = lookup_name_fn("_stext");
	etext = lookup_name_fn("_etext");
	if (!stext || etext <= stext) {
		pr_err("kernel text bounds (_stext/_etext) not found\n");
		lookup_name_fn = NULL;
		return -ENOENT;
	}
	return 0;
}

/* In the core kernel's text (not init text, not a module). */
bool mmtune_in_kernel_text(unsigned long addr)
{
	return addr >= stext && addr < etext;
}

/*
 * In the core kernel's data or bss; false when the bounds are unknown.
 * Looked up on first use: only the rare fallback paths need it, and each
 * look-up walks kallsyms (slow under emulation).
 */
bool mmtune_in_kernel_data(unsigned long addr)
{
	if (!sdata) {
		sdata = mmtune_lookup_name("_sdata");
		edata_end = mmtune_lookup_name("_end");
	}
	return sdata && edata_end > sdata && addr >= sdata && addr < edata_end;
}

/* Any symbol's value, 0 if not found. */
unsigned long mmtune_lookup_name(const char *name)
{
	return lookup_name_fn ? lookup_name_fn(name) : 0;
}

/*
 * A function's entry, only if kallsyms names exactly that function at the
 * address (so a data symbol of the same name, or a look-up that landed in
 * a module, is refused).
 */
unsigned long mmtune_lookup_func(const char *name)
{
	unsigned long addr = mmtune_lookup_name(name);

	if (!addr || !mmtune_symbol_is(addr, name, true))
		return 0;
	if (!mmtune_in_kernel_text(addr))
		return 0;
	return addr;
}
