// SPDX-License-Identifier: GPL-2.0
/*
 * libmmtune: the module's policy text (module/policy.c; docs/policy.md
 * has the grammar) read into rules and counters.  The one parser of it:
 * mmtunectl shows and rewrites the rules, mmstress finds the one that
 * governs itself, and both must read an auto rule's order alike.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "priv.h"

static const char *const auto_keys[MMT_PA_NR] = {
	[MMT_PA_ORDER] = "auto_order=", [MMT_PA_RAISED] = "raised=",
	[MMT_PA_LOWERED] = "lowered=", [MMT_PA_LEARNED] = "learned=",
	[MMT_PA_UNTRUSTED] = "untrusted=",
};

/* order=auto, or auto:N (auto starting at N: what `save` writes) */
int mmt_prule_is_auto(const struct mmt_prule *r)
{
	return !strcmp(r->order, "auto") || !strncmp(r->order, "auto:", 5);
}

int mmt_rule_key(const char *word)
{
	size_t n = strcspn(word, "=");
	int k;

	if (!word[n])
		return -1;
	for (k = 0; k < MMT_KEY_NR; k++)
		if (strlen(mmt_abi_rule_keys[k].name) == n &&
		    !strncmp(word, mmt_abi_rule_keys[k].name, n))
			return k;
	return -1;
}

int mmt_match_kinds(const char *match, int key)
{
	char m[MMT_MATCH_LEN], *w, *save = NULL;
	int k, kinds = 0;

	/* a key starts the match or follows a blank, which no value holds */
	snprintf(m, sizeof(m), "%s", match);
	for (w = strtok_r(m, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		k = mmt_rule_key(w);
		if (k >= 0 && (key < 0 || k == key))
			kinds |= 1 << mmt_abi_rule_keys[k].kind;
	}
	return kinds;
}

int mmt_prule_maps(const struct mmt_prule *r)
{
	return !!(mmt_match_kinds(r->match, -1) & (1 << MMT_ABI_KEY_MAP));
}

size_t mmt_rule_keys_text(char *buf, size_t len, int kinds, int values, const char *last)
{
	size_t off = 0;
	int k, n = 0, nr = 0;

	for (k = 0; k < MMT_KEY_NR; k++)
		nr += k != MMT_KEY_order && (kinds & (1 << mmt_abi_rule_keys[k].kind));
	if (len)
		buf[0] = '\0';
	for (k = 0; k < MMT_KEY_NR; k++) {
		if (k == MMT_KEY_order || !(kinds & (1 << mmt_abi_rule_keys[k].kind)))
			continue;
		off += (size_t)snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,
					"%s%s=%s", !n ? "" : n + 1 == nr ? last : ", ",
					mmt_abi_rule_keys[k].name, values ? mmt_abi_rule_keys[k].value : "");
		n++;
	}
	return off;
}

int mmt_prule_order(const struct mmt_prule *r)
{
	long v;

	if (mmt_prule_is_auto(r))	/* the order it has learned, not "auto" */
		return r->au_seen & 1 << MMT_PA_ORDER && r->au[MMT_PA_ORDER] <= INT_MAX ?
		       (int)r->au[MMT_PA_ORDER] : -1;
	return mmt_parse_long(r->order, 0, INT_MAX, &v) ? -1 : (int)v;
}

int mmt__parse_permille(const char *s, const char *unit, int *pm)
{
	size_t n = strspn(s, "0123456789");
	long v;

	if (!n || n > 3 || s[n] != '.' || !isdigit((unsigned char)s[n + 1]) ||
	    strcmp(s + n + 2, unit))
		return -1;
	v = strtol(s, NULL, 10) * 10 + (s[n + 1] - '0');
	if (v > 1000)
		return -1;
	*pm = (int)v;
	return 0;
}

/* An order=auto field into r; other words are skipped. */
static void parse_auto_ctr(const char *tok, struct mmt_prule *r)
{
	size_t l;
	int i;

	if (!strncmp(tok, "useful=", 7) && mmt__parse_permille(tok + 7, "%", &r->useful))
		r->useful = -1;
	for (i = 0; i < MMT_PA_NR; i++) {
		l = strlen(auto_keys[i]);
		if (!strncmp(tok, auto_keys[i], l) && !mmt_parse_u64(tok + l, &r->au[i]))
			r->au_seen |= 1 << i;
	}
}

/*
 * "hits=H pages=P" (either may be missing or "-"), "prefaulted=F
 * untouched=U" and auto's fields into r.
 */
static void parse_ctrs(char *s, struct mmt_prule *r)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(tok, "hits=", 5) && !mmt_parse_u64(tok + 5, &r->hits))
			r->has_hits = 1;
		else if (!strncmp(tok, "pages=", 6) && !mmt_parse_u64(tok + 6, &r->pages))
			r->has_pages = 1;
		else if (!strncmp(tok, "prefaulted=", 11) && !mmt_parse_u64(tok + 11, &r->prefaulted))
			r->has_prefaulted = 1;
		else if (!strncmp(tok, "untouched=", 10) && !mmt_parse_u64(tok + 10, &r->untouched))
			r->has_untouched = 1;
		else if (!strcmp(tok, "exited"))
			r->exited = 1;
		else
			parse_auto_ctr(tok, r);
	}
}

/* A "# ..." header line into p: 1 if it was one we know, else 0. */
static int parse_header(char *line, struct mmt_policy *p, int *seen_rules)
{
	int nr, max;
	long v;

	/* nr is counted as the rules are read: a bad count must not index r[] */
	if (sscanf(line, "# rules %d/%d", &nr, &max) == 2) {
		*seen_rules = 1;
		p->nr = 0;
		p->max_rules = max;
		return 1;
	}
	if (!strncmp(line, "# kernel order=", 15)) {
		if (!mmt_parse_long(line + 15, 0, 63, &v))
			p->kernel_order = (int)v;
		return 1;
	}
	if (!strncmp(line, "# default order=", 16)) {
		char *sp = strchr(line + 16, ' ');

		if (sp)
			*sp++ = '\0';
		if (!mmt_parse_long(line + 16, 0, 63, &v))
			p->default_order = (int)v;
		if (sp)
			parse_ctrs(sp, &p->def);
		return 1;
	}
	return 0;
}

int mmt__parse_rule(char *line, struct mmt_prule *r)
{
	char *hash = strchr(line, '#'), *tok, *save = NULL;

	memset(r, 0, sizeof(*r));
	r->useful = -1;
	if (hash)
		*hash++ = '\0';
	for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		size_t n = strlen(r->match);

		if (!strncmp(tok, "order=", 6))
			snprintf(r->order, sizeof(r->order), "%s", tok + 6);
		else	/* the keys, one blank between, as the module shows them */
			snprintf(r->match + n, sizeof(r->match) - n, "%s%s", n ? " " : "", tok);
	}
	if (!r->match[0] || !r->order[0])
		return -1;
	if (hash)
		parse_ctrs(hash, r);
	return 0;
}

/* The lines of text (NUL-terminated, cut up here) into p. */
static int parse_lines(char *text, struct mmt_policy *p)
{
	char *line, *save = NULL;
	int seen_rules = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (parse_header(line, p, &seen_rules) || line[0] == '#' || !*line)
			continue;
		if (p->nr >= MMT_PRULES_MAX)
			return mmt__fail(MMT_EINVAL, "more than %d policy rules", MMT_PRULES_MAX);
		if (mmt__parse_rule(line, &p->r[p->nr]))
			return mmt__fail(MMT_EINVAL, "a policy rule without MATCH or order=");
		p->nr++;
	}
	/* without its first line the text is cut short or not the policy */
	return seen_rules ? MMT_OK : mmt__fail(MMT_EINVAL, "no '# rules' line in the policy text");
}

void mmt__policy_init(struct mmt_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->kernel_order = p->default_order = -1;
	p->def.useful = -1;
}

int mmt_parse_policy(const char *text, size_t len, struct mmt_policy *p)
{
	/* a copy to cut up; up to a NUL byte, as a C string reader would */
	char *copy = strndup(text ? text : "", text ? len : 0);
	int rc;

	mmt__policy_init(p);
	if (!copy)
		return mmt__fail(MMT_EIO, "out of memory");
	rc = parse_lines(copy, p);
	free(copy);
	return rc;
}
