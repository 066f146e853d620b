/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON reader for the integration tests, so they can check
 * `cfqx stats --json` without jq (they also run in a busybox VM).  Parses
 * a whole document into a tree; integers keep full 64-bit precision.
 */
#ifndef CFQX_JSON_MINI_H
#define CFQX_JSON_MINI_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	char *key;		/* member name inside an object */
	char *str;
	unsigned long long u;	/* integer value (non-negative integers) */
	double d;
	int b;
	struct jnode *kids;	/* array elements / object members */
	int nkids;
};

struct jparser {
	const char *p;
	int err;
};

static void jskip(struct jparser *jp)
{
	while (*jp->p && isspace((unsigned char)*jp->p))
		jp->p++;
}

/* Bytes up to the string's closing quote: its decoded length at most. */
static size_t jstring_span(const char *p)
{
	const char *q = p;

	while (*q && *q != '"')
		q += q[0] == '\\' && q[1] ? 2 : 1;
	return (size_t)(q - p);
}

static char *jstring(struct jparser *jp)
{
	char *out, *o;

	if (*jp->p != '"') {
		jp->err = 1;
		return NULL;
	}
	jp->p++;
	/* sized to this string: the rest of a large document per string
	 * made one parse reserve gigabytes of heap */
	out = o = malloc(jstring_span(jp->p) + 1);
	if (!out) {
		jp->err = 1;
		return NULL;
	}
	while (*jp->p && *jp->p != '"') {
		if (*jp->p == '\\') {
			jp->p++;
			switch (*jp->p) {
			case 'n': *o++ = '\n'; break;
			case 't': *o++ = '\t'; break;
			case 'u':
				*o++ = (char)strtol((char[5]){ jp->p[1], jp->p[2],
						jp->p[3], jp->p[4], 0 }, NULL, 16);
				jp->p += 4;
				break;
			default: *o++ = *jp->p; break;
			}
			if (*jp->p)
				jp->p++;
		} else {
			*o++ = *jp->p++;
		}
	}
	if (*jp->p != '"')
		jp->err = 1;
	else
		jp->p++;
	*o = 0;
	return out;
}

static void jvalue(struct jparser *jp, struct jnode *n);

static void jadd(struct jparser *jp, struct jnode *n, char *key)
{
	struct jnode *k = realloc(n->kids, (n->nkids + 1) * sizeof(*k));

	if (!k) {
		jp->err = 1;
		free(key);
		return;
	}
	n->kids = k;
	memset(&k[n->nkids], 0, sizeof(*k));
	k[n->nkids].key = key;
	jvalue(jp, &k[n->nkids]);
	n->nkids++;
}

static void jvalue(struct jparser *jp, struct jnode *n)
{
	char *end;

	jskip(jp);
	if (jp->err)
		return;
	if (*jp->p == '{' || *jp->p == '[') {
		int obj = *jp->p == '{';

		n->type = obj ? J_OBJ : J_ARR;
		jp->p++;
		jskip(jp);
		if (*jp->p == (obj ? '}' : ']')) {
			jp->p++;
			return;
		}
		for (;;) {
			char *key = NULL;

			jskip(jp);
			if (obj) {
				key = jstring(jp);
				jskip(jp);
				if (jp->err || *jp->p != ':') {
					jp->err = 1;
					free(key);
					return;
				}
				jp->p++;
			}
			jadd(jp, n, key);
			if (jp->err)
				return;
			jskip(jp);
			if (*jp->p == ',') {
				jp->p++;
				continue;
			}
			if (*jp->p == (obj ? '}' : ']')) {
				jp->p++;
				return;
			}
			jp->err = 1;
			return;
		}
	} else if (*jp->p == '"') {
		n->type = J_STR;
		n->str = jstring(jp);
	} else if (!strncmp(jp->p, "true", 4) || !strncmp(jp->p, "false", 5)) {
		n->type = J_BOOL;
		n->b = *jp->p == 't';
		jp->p += n->b ? 4 : 5;
	} else if (!strncmp(jp->p, "null", 4)) {
		n->type = J_NULL;
		jp->p += 4;
	} else {
		n->type = J_NUM;
		n->d = strtod(jp->p, &end);
		if (end == jp->p) {
			jp->err = 1;
			return;
		}
		n->u = *jp->p == '-' ? 0 : strtoull(jp->p, NULL, 10);
		jp->p = end;
	}
}

static void jfree(struct jnode *n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		jfree(&n->kids[i]);
	free(n->kids);
	free(n->key);
	free(n->str);
}

/* Parse @text; returns a heap root (free with jfree + free) or NULL. */
static struct jnode *jparse(const char *text)
{
	struct jparser jp = { text, 0 };
	struct jnode *root = calloc(1, sizeof(*root));

	if (!root)
		return NULL;
	jvalue(&jp, root);
	jskip(&jp);
	if (jp.err || *jp.p) {
		jfree(root);
		free(root);
		return NULL;
	}
	return root;
}

static struct jnode *jget(struct jnode *n, const char *key)
{
	int i;

	if (!n || n->type != J_OBJ)
		return NULL;
	for (i = 0; i < n->nkids; i++)
		if (!strcmp(n->kids[i].key, key))
			return &n->kids[i];
	return NULL;
}

static unsigned long long jnum(struct jnode *n, const char *key)
{
	struct jnode *v = jget(n, key);

	return v && v->type == J_NUM ? v->u : ~0ULL;
}

static const char *jstr(struct jnode *n, const char *key)
{
	struct jnode *v = jget(n, key);

	return v && v->type == J_STR ? v->str : "";
}

#endif /* CFQX_JSON_MINI_H */
