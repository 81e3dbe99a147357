import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/**
 * On a phone the navigation stands above the screen it opens (some 600 px of it): a screen just
 * chosen there is brought into view, instead of leaving the page at the top under the list. On a
 * wide screen it is beside the navigation, already in view, and nothing moves.
 */
export function useIntoView(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const box = ref.current?.getBoundingClientRect();
    if (box && box.top > window.innerHeight / 2) ref.current?.scrollIntoView({ block: 'start' });
  }, []);
}
