/* cppcheck's workload: a file with the usual mistakes, for its checkers to find. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; char name[8]; int v; };
static struct node *push(struct node *head, const char *name, int v) {
    struct node *n = malloc(sizeof *n);
    strcpy(n->name, name);              /* unchecked malloc, possible overflow */
    n->next = head;
    n->v = v;
    return n;
}
int sum(struct node *l) { int s; while (l) { s += l->v; l = l->next; } return s; }   /* s uninitialised */
int main(int argc, char **argv) {
    int a[10];
    struct node *l = NULL;
    for (int i = 0; i <= 10; i++) a[i] = i;    /* out of bounds */
    l = push(l, argc > 1 ? argv[1] : "a-very-long-name", a[3]);
    FILE *f = fopen("x", "r");
    char buf[4];
    if (f) fgets(buf, 10, f);                  /* too long; f leaked */
    printf("%d %s\n", sum(l), buf);
    free(l);
    free(l);                                   /* double free */
#ifdef DEBUG
    char *p = 0; *p = 1;
#endif
    return 0;
}
