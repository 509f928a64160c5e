// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit checks of the advisor's choice (userspace/ctl/advpick.c):
 * cases worked out by hand below, then random small cases against every
 * policy tried one by one.
 *
 *   advise_unit    prints "ok - advise: NAME" / "not ok - advise: NAME: why";
 *                  exits 1 if any failed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advpick.h"
#include "unit_check.h"

#define check(cond, name, ...)	unit_check("advise", name, cond, __VA_ARGS__)

/* A file of three orders: (faults, untouched) at 0, 1 and 2. */
static struct adv_file file3(unsigned long long f0, unsigned long long u0, unsigned long long f1,
			     unsigned long long u1, unsigned long long f2, unsigned long long u2)
{
	struct adv_file f = { .at = { { f0, u0 }, { f1, u1 }, { f2, u2 } }, .ruleable = 1 };

	return f;
}

/*
 * A wants order 2 (100, 60, 30 faults; 0, 10, 40 untouched), B nothing
 * (50 faults at every order; 0, 5, 20 untouched): a sequential file and
 * a sparse one.  Single orders: 0 150/0, 1 110/15, 2 80/60.
 */
#define FILE_A	file3(100, 0, 60, 10, 30, 40)
#define FILE_B	file3(50, 0, 50, 5, 50, 20)

static struct adv_out pick(struct adv_file *f, int nf, int rules, unsigned long long budget,
			   unsigned long cells, int *ord)
{
	struct adv_in in = { .f = f, .nf = nf, .norders = 3, .max_rules = rules, .budget = budget,
			     .cells = cells };
	struct adv_out o = { .order = ord };

	if (adv_pick(&in, &o))
		check(0, "no memory", "adv_pick failed");
	return o;
}

static void hand_cases(void)
{
	struct adv_file f[5] = { FILE_A, FILE_B };
	unsigned long long sf = 0, su = 0;
	struct adv_in in = { .f = f, .nf = 2, .norders = 3, .budget = 40 };
	struct adv_out o;
	int ord[5];

	o = pick(f, 2, 31, 0, 0, ord);
	check(ord[0] == 0 && ord[1] == 0 && o.faults == 150 && o.untouched == 0 && !o.rules && !o.over,
	      "budget 0: order 0 everywhere, 150 faults", "orders %d %d, %llu faults %llu untouched %d rules",
	      ord[0], ord[1], o.faults, o.untouched, o.rules);
	o = pick(f, 2, 31, ~0ULL, 0, ord);
	check(ord[0] == 2 && ord[1] == 0 && o.faults == 80 && o.untouched == 40 && o.unit == 1,
	      "no budget: each file its fewest faults (B at its least untouched, 0)",
	      "orders %d %d, %llu faults %llu untouched", ord[0], ord[1], o.faults, o.untouched);
	o = pick(f, 2, 31, 40, 0, ord);
	check(adv_single(&in, &sf, &su) == 1 && sf == 110 && su == 15,
	      "budget 40: the best single order is 1 (110 faults, 15 untouched)", "%llu %llu", sf, su);
	check(ord[0] == 2 && ord[1] == 0 && o.faults == 80 && o.untouched == 40 && o.rules == 1,
	      "budget 40: per file beats the best single order: 80 faults against 110",
	      "orders %d %d, %llu faults", ord[0], ord[1], o.faults);
	o = pick(f, 2, 31, 39, 0, ord);
	check(ord[0] == 1 && o.faults == 110 && o.untouched <= 39,
	      "budget 39: A cannot take 2; A at 1, B at 0 (110 faults, 10 untouched)",
	      "orders %d %d, %llu faults %llu untouched", ord[0], ord[1], o.faults, o.untouched);
	check(o.untouched == 10 && ord[1] == 0, "budget 39: B at 0, not at 1 (same faults, fewer untouched)",
	      "B at %d, %llu untouched", ord[1], o.untouched);

	/* four files, A twice and B twice: the rule limit binds */
	f[2] = FILE_A;
	f[3] = FILE_B;
	o = pick(f, 4, 1, ~0ULL, 0, ord);
	check(o.rest == 2 && o.rules == 1 && o.faults == 160 && o.untouched == 100,
	      "one rule, 4 files: rest at 2, one sparse file at 0 (160 faults, 100 untouched)",
	      "rest %d, %d rules, %llu faults %llu untouched", o.rest, o.rules, o.faults, o.untouched);
	o = pick(f, 4, 2, ~0ULL, 0, ord);
	check(o.rules == 2 && o.faults == 160 && o.untouched == 80 && o.rest == 0 && ord[0] == 2 &&
	      ord[2] == 2, "two rules: both sparse files at 0 (160 faults, 80 untouched; rest 0 on a tie)",
	      "rest %d, %d rules, %llu faults %llu untouched", o.rest, o.rules, o.faults, o.untouched);
	o = pick(f, 4, 0, ~0ULL, 0, ord);
	check(o.rules == 0 && o.rest == 2 && o.faults == 160 && o.untouched == 120,
	      "no rule: the best single order, 2", "rest %d, %d rules, %llu faults", o.rest, o.rules, o.faults);

	/* a flat file and a file no rule can name fold into the rest */
	f[2] = file3(7, 3, 7, 3, 7, 3);
	o = pick(f, 3, 31, ~0ULL, 0, ord);
	check(ord[2] == o.rest && o.rules == 1 && o.faults == 87, "a file the same at every order: the rest's",
	      "its order %d, rest %d, %d rules", ord[2], o.rest, o.rules);
	f[1].ruleable = 0;
	o = pick(f, 2, 31, ~0ULL, 0, ord);
	check(ord[1] == o.rest && o.rest == 0 && ord[0] == 2 && o.faults == 80 && o.untouched == 40,
	      "an unnamed file: the rest's order (0), the other ruled at 2",
	      "orders %d %d, rest %d", ord[0], ord[1], o.rest);
	f[1].ruleable = 1;

	/* whole folios: pages untouched at order 0 too, a budget below that */
	f[1] = file3(50, 8, 50, 9, 50, 20);
	o = pick(f, 2, 31, 0, 0, ord);
	check(o.over && o.untouched == 8 && ord[1] == 0 && ord[0] == 0,
	      "nothing fits: the least untouched policy, said so", "over %d, %llu untouched", o.over,
	      o.untouched);

	/* a table of few cells: the budget in units, the policy still within it */
	f[1] = FILE_B;
	o = pick(f, 2, 31, 39, 4, ord);
	check(o.unit > 1 && o.untouched <= 39, "few cells: counted in units, still within the budget",
	      "unit %lu, %llu untouched", o.unit, o.untouched);
}

/* The best policy by trying each: (faults, untouched) into *bf, *bu. */
static void brute(const struct adv_in *in, unsigned long long *bf, unsigned long long *bu)
{
	int ord[8], r, i, n, rules, k;
	unsigned long long f, u;
	long c, combos = 1;

	for (i = 0; i < in->nf; i++)
		combos *= in->norders;
	*bf = *bu = ~0ULL;
	for (r = 0; r < in->norders; r++)
		for (c = 0; c < combos; c++) {
			long x = c;

			for (i = 0, f = u = 0, rules = 0, n = 1; i < in->nf; i++, x /= in->norders) {
				k = ord[i] = (int)(x % in->norders);
				n &= k == r || in->f[i].ruleable;
				rules += k != r;
				f += in->f[i].at[k].faults;
				u += in->f[i].at[k].untouched;
			}
			if (!n || rules > in->max_rules || u > in->budget)
				continue;
			if (f < *bf || (f == *bf && u < *bu)) {
				*bf = f;
				*bu = u;
			}
		}
}

static void random_cases(void)
{
	struct adv_file f[5];
	int ord[5], n, i, k, bad = 0, rules = 0;
	unsigned long long bf, bu;

	srand(46);
	for (n = 0; n < 2000 && !bad; n++) {
		struct adv_in in = { .f = f, .nf = 1 + rand() % 5, .norders = 1 + rand() % 4,
				     .max_rules = rand() % 4, .budget = rand() % 60 };
		struct adv_out o = { .order = ord };

		memset(f, 0, sizeof(f));
		for (i = 0; i < in.nf; i++) {
			f[i].ruleable = rand() % 6 != 0;
			for (k = 0; k < in.norders; k++)
				f[i].at[k] = (struct adv_at){ rand() % 40, k ? rand() % 25 : rand() % 3 };
		}
		brute(&in, &bf, &bu);
		if (bf == ~0ULL || adv_pick(&in, &o))
			continue;
		for (i = 0, k = 0; i < in.nf; i++)
			k += ord[i] != o.rest;
		rules += o.rules;
		if (o.faults != bf || o.untouched != bu || o.over || k != o.rules || k > in.max_rules) {
			bad = 1;
			check(0, "2000 random cases: the fewest faults, then untouched, as trying every policy",
			      "case %d: %llu/%llu against %llu/%llu, %d rules of %d", n, o.faults, o.untouched,
			      bf, bu, k, in.max_rules);
		}
	}
	if (!bad)
		check(rules > 100, "2000 random cases: the fewest faults, then untouched, as trying every policy",
		      "%d of them had a rule", rules);
}

int main(void)
{
	hand_cases();
	random_cases();
	return unit_failed;
}
