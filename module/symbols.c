// SPDX-License-Identifier: GPL-2.0
/*
 * mmtune: resolving kernel symbols that are not exported.
 *
 * kallsyms_lookup_name() is not exported since 5.7, and calling it through
 * a pointer is not an option either: objtool "seals" every function whose
 * address the kernel never takes, and kallsyms_lookup_name is one of them.
 * On an x86 kernel built with IBT its ENDBR64 is overwritten with a NOP at
 * boot, and an indirect call to it raises #CP on a CPU that enforces IBT.
 *
 * So no name is looked up by calling kallsyms ourselves.  The kprobe layer
 * does it for us: register_kprobe() with .symbol_name resolves the name
 * (kprobe_lookup_name, kallsyms_lookup_size_offset, then the arch's entry
 * adjustment) and stores the result in kp.addr before any other check, so
 * kp.addr is set also when the registration then fails (a data symbol such
 * as max_pfn, a kprobe-blacklisted function).  The probe is registered
 * disabled, so nothing is ever armed; the successful registrations are
 * undone together by mmtune_symbols_done() (one RCU grace period for all).
 *
 * kp.addr is not always the symbol's value:
 *   - x86 with IBT: kprobes skip the ENDBR64 (or its sealed NOP), so kp.addr
 *     is entry + 4;
 *   - ppc64 ELFv2: kprobes use the local entry point (or the ftrace call),
 *     past the two instructions that set up r2 (the TOC) from r12.
 * Both are undone without any per-arch knowledge: sprint_symbol() gives
 * "name+off/size" for kp.addr from the kernel's own symbol table, and
 * kp.addr - off is the symbol's value.  It is accepted only when the name
 * there is exactly the one asked for (see resolve()).
 *
 * A function the module calls through a pointer must also be a valid
 * indirect-branch target: mmtune_lookup_callable() checks its entry bytes
 * on an IBT kernel and records the result for info.
 */
#include <linux/kernel.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "mmtune.h"
#include "compat/symbols.h"

/* The core kernel's text and data, from kallsyms (not exported either). */
static unsigned long stext, etext, sdata, edata_end;

/*
 * Look-ups made while the module initialises, kept until
 * mmtune_symbols_done(): the same name is asked for more than once, and
 * each look-up walks kallsyms (slow under emulation).
 */
struct mmt_sym {
	struct list_head list;
	struct kprobe kp;	/* registered (disabled) if .addr is set */
	unsigned long value;	/* 0: not found or refused */
	char name[];
};

static LIST_HEAD(syms);
static bool batching;
static unsigned int nr_lookups, nr_registered;

/* Functions called through a pointer, and their entry check (info). */
#define MMT_MAX_CALLABLE	8
static struct {
	const char *name;
	const char *check;	/* "endbr", "no-ibt" or "refused" */
	bool ok;
} callables[MMT_MAX_CALLABLE];
static unsigned int nr_callables;

/*
 * Split "name+0xoff/0xsize [mod]" from sprint_symbol().  Returns false if
 * the text is not of that form.  @module is set when "[mod]" follows.
 * The one parser of that text in the module.
 */
static bool parse_symbol(const char *buf, char *name, size_t len,
			 unsigned long *off, unsigned long *size, bool *module)
{
	const char *plus = strchr(buf, '+');
	const char *slash, *end;
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
	end = strchr(slash, ' ');
	n = end ? end - slash - 1 : strlen(slash + 1);
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, slash + 1, n);
	num[n] = '\0';
	if (kstrtoul(num, 0, size))
		return false;
	*module = end && strchr(end, '[');
	memcpy(name, buf, plus - buf);
	name[plus - buf] = '\0';
	return true;
}

/* sprint_symbol() of @addr, split; false if kallsyms does not know it. */
static bool symbol_at(unsigned long addr, char *name, unsigned long *off,
		      unsigned long *size, bool *module)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, addr);
	return parse_symbol(buf, name, KSYM_NAME_LEN, off, size, module);
}

/*
 * True if @addr is inside the kernel symbol @name (exactly that name, not
 * a module's), and at its start when @at_start.
 */
bool mmtune_symbol_is(unsigned long addr, const char *name, bool at_start)
{
	char sym[KSYM_NAME_LEN];
	unsigned long off, size;
	bool module;

	if (!addr || !symbol_at(addr, sym, &off, &size, &module))
		return false;
	if (module || strcmp(sym, name))
		return false;
	return !at_start || off == 0;
}

/* The size of the symbol @addr is in (kernel or module), 0 if unknown. */
unsigned long mmtune_symbol_size(unsigned long addr)
{
	char sym[KSYM_NAME_LEN];
	unsigned long off, size;
	bool module;

	if (!addr || !symbol_at(addr, sym, &off, &size, &module))
		return 0;
	return size;
}

/*
 * Undo the registrations of the look-ups so far, in batches: one RCU
 * grace period per batch instead of one per look-up.
 */
static void flush(void)
{
	struct mmt_sym *s, *tmp;
	struct kprobe *kps[16];
	unsigned int n = 0;

	list_for_each_entry(s, &syms, list) {
		if (!s->kp.addr)
			continue;
		kps[n++] = &s->kp;
		if (n == ARRAY_SIZE(kps)) {
			unregister_kprobes(kps, n);
			n = 0;
		}
	}
	if (n)
		unregister_kprobes(kps, n);
	list_for_each_entry_safe(s, tmp, &syms, list) {
		list_del(&s->list);
		kfree(s);
	}
}

/*
 * The value of @name from kp.addr (see the top of the file), or 0.  A
 * linker symbol (_stext, _sdata) may share its address with another name
 * that kallsyms prints instead; that is accepted only at offset 0, where
 * the kprobe core moved nothing.
 */
static unsigned long value_of(const char *name, unsigned long kaddr)
{
	char sym[KSYM_NAME_LEN];
	unsigned long off, size;
	bool module;

	if (!kaddr || !symbol_at(kaddr, sym, &off, &size, &module) || module)
		return 0;
	if (!strcmp(sym, name))
		return off <= kaddr ? kaddr - off : 0;
	return off == 0 ? kaddr : 0;
}

static struct mmt_sym *resolve(const char *name)
{
	size_t len = strlen(name) + 1;
	struct mmt_sym *s;

	list_for_each_entry(s, &syms, list)
		if (!strcmp(s->name, name))
			return s;
	s = kzalloc(sizeof(*s) + len, GFP_KERNEL);
	if (!s)
		return NULL;
	memcpy(s->name, name, len);
	s->kp.symbol_name = s->name;
	s->kp.flags = KPROBE_FLAG_DISABLED;
	nr_lookups++;
	if (register_kprobe(&s->kp)) {
		/* kp.addr may be set (found, but not probeable): kept */
		s->value = value_of(name, (unsigned long)s->kp.addr);
		s->kp.addr = NULL;
	} else {
		nr_registered++;
		s->value = value_of(name, (unsigned long)s->kp.addr);
	}
	list_add(&s->list, &syms);
	return s;
}

/* Any symbol's value, 0 if not found. */
unsigned long mmtune_lookup_name(const char *name)
{
	struct mmt_sym *s = resolve(name);
	unsigned long value = s ? s->value : 0;

	if (!batching)
		flush();
	return value;
}

/* The end of the kernel's writable data: _end, or __bss_stop before it. */
static unsigned long data_end(void)
{
	unsigned long end = mmtune_lookup_name("_end");

	return end ? end : mmtune_lookup_name("__bss_stop");
}

int mmtune_symbols_init(void)
{
	batching = true;
	stext = mmtune_lookup_name("_stext");
	etext = mmtune_lookup_name("_etext");
	/*
	 * Without KALLSYMS_ALL the kprobe core refuses _etext: it lies past
	 * the last text symbol, where kallsyms gives no size or offset.  The
	 * init text that follows the core text bounds it then; kallsyms names
	 * text symbols alone on such a kernel, so no data symbol gets in.
	 */
	if (!etext && !IS_ENABLED(CONFIG_KALLSYMS_ALL))
		etext = mmtune_lookup_name("_sinittext");
	if (!stext || etext <= stext) {
		pr_err("kernel text bounds (_stext/_etext) not found through kprobes\n");
		mmtune_symbols_done();
		return -ENOENT;
	}
	return 0;
}

/* End of initialisation: undo every registration of the look-ups. */
void mmtune_symbols_done(void)
{
	batching = false;
	flush();
}

/* In the core kernel's text (not init text, not a module). */
bool mmtune_in_kernel_text(unsigned long addr)
{
	return addr >= stext && addr < etext;
}

/*
 * In the core kernel's data or bss; false when the bounds are unknown.
 * Looked up on first use: only the rare fallback paths need it.
 */
bool mmtune_in_kernel_data(unsigned long addr)
{
	if (!sdata) {
		sdata = mmtune_lookup_name("_sdata");
		edata_end = data_end();
	}
	return sdata && edata_end > sdata && addr >= sdata && addr < edata_end;
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

/*
 * A compiler-specialised copy of @name ("name.isra.0", ...) that exists,
 * written into @buf; false if there is none.
 */
bool mmtune_lookup_renamed(const char *name, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mmtune_cc_suffixes); i++) {
		snprintf(buf, len, "%s%s", name, mmtune_cc_suffixes[i]);
		if (mmtune_lookup_name(buf))
			return true;
	}
	return false;
}

/*
 * The entries of the function @name and of each of its specialised
 * copies (mmtune_lookup_func() of each), at most @max into @addrs;
 * returns how many.
 */
unsigned int mmtune_lookup_func_copies(const char *name, unsigned long *addrs,
				       unsigned int max)
{
	char buf[KSYM_NAME_LEN];
	unsigned int i, n = 0;
	unsigned long addr;

	for (i = 0; i <= ARRAY_SIZE(mmtune_cc_suffixes) && n < max; i++) {
		snprintf(buf, sizeof(buf), "%s%s", name,
			 i ? mmtune_cc_suffixes[i - 1] : "");
		addr = mmtune_lookup_func(buf);
		if (addr)
			addrs[n++] = addr;
	}
	return n;
}

/*
 * Whether an indirect call may land on @addr.  On a kernel built with IBT
 * every indirect-call target starts with ENDBR64; a function objtool
 * sealed (its ENDBR64 replaced by a NOP at boot) would raise #CP on a CPU
 * that enforces IBT.  Checked on the bytes, whatever the CPU; a refusal
 * is logged once (each function is looked up once).
 */
static const char *entry_check(unsigned long addr, bool *ok)
{
#ifdef CONFIG_X86_KERNEL_IBT
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 insn[4];

	*ok = false;
	if (copy_from_kernel_nofault(insn, (void *)addr, sizeof(insn))) {
		pr_warn("not calling %pS through a pointer: entry unreadable\n",
			(void *)addr);
		return "refused";
	}
	if (memcmp(insn, endbr64, sizeof(insn))) {
		pr_warn("not calling %pS through a pointer: entry %4phN is not ENDBR64 (sealed)\n",
			(void *)addr, insn);
		return "refused";
	}
	*ok = true;
	return "endbr";
#else
	*ok = true;
	return "no-ibt";
#endif
}

/*
 * The entry of the kernel function @name for an indirect call, or 0 when
 * it is not found or not a valid indirect-branch target.  Every function
 * the module calls through a pointer comes from here: info lists them.
 */
unsigned long mmtune_lookup_callable(const char *name)
{
	unsigned long addr = mmtune_lookup_func(name);
	const char *check;
	bool ok;

	if (!addr)
		return 0;
	check = entry_check(addr, &ok);
	if (nr_callables < MMT_MAX_CALLABLE) {
		callables[nr_callables].name = name;
		callables[nr_callables].check = check;
		callables[nr_callables].ok = ok;
		nr_callables++;
	}
	return ok ? addr : 0;
}

/*
 * info's values:
 *   ibt: yes|no                     kernel built with CONFIG_X86_KERNEL_IBT
 *   indirect_calls: NAME...         kernel functions called through a pointer
 *   indirect_call_checks: NAME=CHECK...  each one's entry check
 *   symbol_lookups: N (M kprobes registered)
 */
MMTUNE_INFO_SHOW(ibt, "%s", IS_ENABLED(CONFIG_X86_KERNEL_IBT) ? "yes" : "no")

static ssize_t indirect_calls_show(char *buf, unsigned int arg)
{
	unsigned int i;
	ssize_t len = 0;

	for (i = 0; i < nr_callables; i++)
		if (callables[i].ok)
			len += sysfs_emit_at(buf, len, "%s%s", len ? " " : "",
					     callables[i].name);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t indirect_call_checks_show(char *buf, unsigned int arg)
{
	unsigned int i;
	ssize_t len = 0;

	for (i = 0; i < nr_callables; i++)
		len += sysfs_emit_at(buf, len, "%s%s=%s", len ? " " : "",
				     callables[i].name, callables[i].check);
	return len + sysfs_emit_at(buf, len, "\n");
}

MMTUNE_INFO_SHOW(symbol_lookups, "%u (%u kprobes registered)", nr_lookups,
		 nr_registered)

const struct mmtune_info mmtune_symbols_info[] = {
	{ "ibt", ibt_show },
	{ "indirect_calls", indirect_calls_show },
	{ "indirect_call_checks", indirect_call_checks_show },
	{ "symbol_lookups", symbol_lookups_show },
	{ }
};
