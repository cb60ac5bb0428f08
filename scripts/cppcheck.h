/* Macros from system headers that cppcheck does not read (make lint). */
#define cJSON_ArrayForEach(element, array)                                                         \
	for (element = (array != NULL) ? (array)->child : NULL; element != NULL;                   \
	     element = element->next)
