/* profile.js: "where the time goes" (issue 16). When the view carries a
 * profile (view.profile, written by src/profile_join.c from a torch.profiler
 * trace given with --profile), adds a time column and a heat gutter to every
 * panel, a time column to the kernel table and the "top kernels" and "top
 * model lines" tables. Without a profile it does nothing.
 */
