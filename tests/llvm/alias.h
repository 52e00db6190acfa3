/* Alias assertions checked by `andersen-gpu check-aliases` (C++ sees mangled names). */
void MAYALIAS(void *, void *);
void NOALIAS(void *, void *);
void MUSTALIAS(void *, void *);
void PARTIALALIAS(void *, void *);
void EXPECTEDFAIL_MAYALIAS(void *, void *);
void EXPECTEDFAIL_NOALIAS(void *, void *);
